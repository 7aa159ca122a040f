#!/usr/bin/env python3
"""Makes the seed decisions of Benchmarks/PolicyBenchmarks with Cedar (cedarpy) and prints decisions/second.

Requires `pip install cedarpy`. Output: one JSON object {"Seed policy: allowed GetObject": ops_per_second, ...}
on stdout, with the Swift benchmarks' names so peers/report.py prints ratios.

The Cedar rule is the per-user folder check of policies/facebook/personal-store.json. Cedar has no string
prefix operator for a value taken from the request, so, as an application embedding Cedar would, each
request names its object as an entity whose `folder` attribute is the key's first path segment, and a
listing passes its prefix's first segment (and whether a slash follows it) in the context. That splitting
is part of every measured decision, as building the request is on the Swift side.
"""
import json
import sys

import cedarpy
from peer_timing import rate

POLICIES = """
permit (
    principal,
    action in [
        Action::"s3:GetObject", Action::"s3:PutObject", Action::"s3:DeleteObject",
        Action::"s3:AbortMultipartUpload", Action::"s3:ListMultipartUploadParts"
    ],
    resource is Object
) when { resource.bucket == "wif-personal" && resource.folder == principal.facebookId };

permit (
    principal,
    action == Action::"s3:ListBucket",
    resource == Bucket::"wif-personal"
) when { context.prefixFolder == principal.facebookId && context.prefixHasFolderSlash };
"""

USER = "1234567890"
PRINCIPAL = {"uid": {"type": "User", "id": USER}, "attrs": {"facebookId": USER}, "parents": []}


def object_request(action, bucket, key):
    folder, slash, _ = key.partition("/")
    uid = {"type": "Object", "id": f"{bucket}/{key}"}
    entities = [PRINCIPAL, {"uid": uid, "attrs": {"bucket": bucket, "folder": folder if slash else ""}, "parents": []}]
    request = {
        "principal": {"type": "User", "id": USER},
        "action": {"type": "Action", "id": action},
        "resource": uid,
        "context": {},
    }
    return request, entities


def list_request(bucket, prefix):
    folder, slash, _ = prefix.partition("/")
    uid = {"type": "Bucket", "id": bucket}
    entities = [PRINCIPAL, {"uid": uid, "attrs": {}, "parents": []}]
    request = {
        "principal": {"type": "User", "id": USER},
        "action": {"type": "Action", "id": "s3:ListBucket"},
        "resource": uid,
        "context": {"prefix": prefix, "prefixFolder": folder, "prefixHasFolderSlash": slash == "/"},
    }
    return request, entities


def decide(policy_set, build, *arguments):
    request, entities = build(*arguments)
    return cedarpy.is_authorized(request, policy_set, entities).decision


def main():
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 3.0
    policy_set = cedarpy.PolicySet.from_str(POLICIES)
    allowed = (object_request, "s3:GetObject", "wif-personal", f"{USER}/photos/2026/holiday.jpg")
    cross_user = (object_request, "s3:GetObject", "wif-personal", "1234567891/photos/2026/holiday.jpg")
    listing = (list_request, "wif-personal", f"{USER}/photos/")
    # The rule must decide as the IAM policy does before its speed means anything.
    expected = [(allowed, cedarpy.Decision.Allow), (cross_user, cedarpy.Decision.Deny), (listing, cedarpy.Decision.Allow)]
    for case, decision in expected:
        actual = decide(policy_set, *case)
        if actual != decision:
            sys.exit(f"cedar decided {actual} for {case[1:]}, expected {decision}")
    result = {
        "Seed policy: allowed GetObject": rate(lambda: decide(policy_set, *allowed), seconds),
        "Seed policy: denied cross-user GetObject": rate(lambda: decide(policy_set, *cross_user), seconds),
        "Seed policy: ListBucket with prefix": rate(lambda: decide(policy_set, *listing), seconds),
        "Seed policy parse and compile": rate(lambda: cedarpy.PolicySet.from_str(POLICIES), seconds),
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()

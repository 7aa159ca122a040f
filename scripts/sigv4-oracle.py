#!/usr/bin/env python3
"""Expected SigV4 results for S3 and STS requests, computed with botocore.

botocore is the reference implementation the Swift signer is checked against for the
S3-specific rules (no path normalisation, no second encoding of the path, the
x-amz-content-sha256 header, UNSIGNED-PAYLOAD, presigned URLs) and for STS.

Each case lists the request exactly as it goes on the wire (percent-encoded path and
query, headers in order, body), the credentials, the signing time and the mode, and
what botocore computed: canonical request, string to sign, signature, and either the
headers it added or the presigned URL.

Usage:
    scripts/sigv4-oracle.py                 # rewrite Tests/.../Fixtures/sigv4-s3/cases.json
    scripts/sigv4-oracle.py --output -      # print the JSON instead

The output is deterministic: the clock botocore reads is replaced by each case's time.
"""

import argparse
import datetime
import json
import os
import sys
from types import SimpleNamespace

try:
    import botocore
    import botocore.auth
    from botocore.awsrequest import AWSRequest
    from botocore.credentials import Credentials
    from botocore.utils import percent_encode, percent_encode_sequence
except ImportError as error:  # pragma: no cover - reported to the caller
    sys.stderr.write(f"botocore is not importable: {error}\n")
    sys.exit(2)

ACCESS_KEY = "AKIDEXAMPLE"
SECRET_KEY = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
SESSION_TOKEN = (
    "IQoJb3JpZ2luX2VjEXAMPLE//////////wEaCXVzLWVhc3QtMSJHMEUCIQD+example/token="
)
DEFAULT_OUTPUT = os.path.join(
    os.path.dirname(os.path.abspath(__file__)),
    "..",
    "Tests",
    "WIFSigV4Tests",
    "Fixtures",
    "sigv4-s3",
    "cases.json",
)


def s3_key_path(bucket, key):
    """The path botocore's serializer builds for a path-style S3 object URL."""
    return "/" + percent_encode(bucket, safe="") + "/" + percent_encode(key, safe="/~")


def vhost_key_path(key):
    """The path for a virtual-hosted-style S3 object URL."""
    return "/" + percent_encode(key, safe="/~")


def query_of(pairs):
    return percent_encode_sequence(pairs) if pairs else ""


# Every case: how to sign (mode, rules, service, region, time, expiry, token) and the
# request on the wire. `payload` is "bytes" (hash the body), "unsigned"
# (UNSIGNED-PAYLOAD) or "empty" (no body).
CASES = [
    # --- S3, Authorization header -------------------------------------------------
    dict(
        name="s3-get-object",
        mode="header", rules="s3", service="s3", region="us-east-1",
        time="2013-05-24T00:00:00Z",
        method="GET", scheme="https", host="examplebucket.s3.amazonaws.com",
        path=vhost_key_path("test.txt"), query="",
        headers=[["Range", "bytes=0-9"]],
        payload="empty",
    ),
    dict(
        name="s3-get-object-session-token",
        mode="header", rules="s3", service="s3", region="eu-west-3", token=True,
        time="2024-02-29T23:59:59Z",
        method="GET", scheme="https", host="s3.eu-west-3.amazonaws.com",
        path=s3_key_path("wif-users", "users/alice/report.pdf"), query="",
        headers=[],
        payload="empty",
    ),
    dict(
        name="s3-key-spaces",
        mode="header", rules="s3", service="s3", region="us-east-1",
        time="2024-01-01T00:00:00Z",
        method="GET", scheme="https", host="examplebucket.s3.amazonaws.com",
        path=vhost_key_path("my photos/summer 2024/beach day.jpg"), query="",
        headers=[],
        payload="empty",
    ),
    dict(
        name="s3-key-plus-equals-tilde",
        mode="header", rules="s3", service="s3", region="us-east-1",
        time="2024-01-01T00:00:00Z",
        method="GET", scheme="https", host="examplebucket.s3.amazonaws.com",
        path=vhost_key_path("a+b=c~d&e@f:g,h;i$j!k'l(m)n*o.txt"), query="",
        headers=[],
        payload="empty",
    ),
    dict(
        name="s3-key-unicode",
        mode="header", rules="s3", service="s3", region="ap-northeast-1",
        time="2023-12-31T23:59:59Z",
        method="GET", scheme="https", host="s3.ap-northeast-1.amazonaws.com",
        path=s3_key_path("examplebucket", "résumé/日本語 ファイル/ሴ😀.txt"), query="",
        headers=[],
        payload="empty",
    ),
    dict(
        name="s3-key-literal-percent-2F",
        mode="header", rules="s3", service="s3", region="us-east-1",
        time="2024-01-01T00:00:00Z",
        method="GET", scheme="https", host="examplebucket.s3.amazonaws.com",
        path=vhost_key_path("folder%2Fnot-a-slash/100%.txt"), query="",
        headers=[],
        payload="empty",
    ),
    dict(
        name="s3-path-encoded-slash-kept",
        mode="header", rules="s3", service="s3", region="us-east-1",
        time="2024-01-01T00:00:00Z",
        method="GET", scheme="https", host="examplebucket.s3.amazonaws.com",
        path="/folder%2Fkey", query="",
        headers=[],
        payload="empty",
    ),
    dict(
        name="s3-key-double-slashes",
        mode="header", rules="s3", service="s3", region="us-east-1",
        time="2024-01-01T00:00:00Z",
        method="GET", scheme="https", host="examplebucket.s3.amazonaws.com",
        path=vhost_key_path("dir//sub///file.txt/"), query="",
        headers=[],
        payload="empty",
    ),
    dict(
        name="s3-key-dot-segments-not-normalised",
        mode="header", rules="s3", service="s3", region="us-east-1",
        time="2024-01-01T00:00:00Z",
        method="GET", scheme="https", host="s3.us-east-1.amazonaws.com",
        path=s3_key_path("examplebucket", "a/../b/./c/.."), query="",
        headers=[],
        payload="empty",
    ),
    dict(
        name="s3-list-objects-query-special-chars",
        mode="header", rules="s3", service="s3", region="us-west-2",
        time="2024-06-15T08:30:00Z",
        method="GET", scheme="https", host="examplebucket.s3.us-west-2.amazonaws.com",
        path="/",
        query=query_of([
            ["list-type", "2"],
            ["prefix", "photos/2024 summer+fun/é~"],
            ["delimiter", "/"],
            ["continuation-token", "1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM="],
            ["max-keys", "100"],
            ["start-after", "a&b=c"],
        ]),
        headers=[],
        payload="empty",
    ),
    dict(
        name="s3-subresource-empty-value",
        mode="header", rules="s3", service="s3", region="us-east-1",
        time="2024-01-01T00:00:00Z",
        method="GET", scheme="https", host="examplebucket.s3.amazonaws.com",
        path="/", query="acl=",
        headers=[],
        payload="empty",
    ),
    dict(
        name="s3-put-object-signed-body",
        mode="header", rules="s3", service="s3", region="us-east-1",
        time="2013-05-24T00:00:00Z",
        method="PUT", scheme="https", host="examplebucket.s3.amazonaws.com",
        path=vhost_key_path("test$file.text"), query="",
        headers=[
            ["x-amz-storage-class", "REDUCED_REDUNDANCY"],
            ["Content-Type", "text/plain"],
        ],
        body="Welcome to Amazon S3.",
        payload="bytes",
    ),
    dict(
        name="s3-put-object-unsigned-payload",
        mode="header", rules="s3", service="s3", region="eu-central-1", token=True,
        time="2024-03-10T12:00:00Z",
        method="PUT", scheme="https", host="s3.eu-central-1.amazonaws.com",
        path=s3_key_path("wif-users", "users/bob/big file+1.bin"), query="",
        headers=[
            ["Content-Type", "application/octet-stream"],
            ["Content-Length", "5242880"],
            ["x-amz-meta-Owner", "  Bob   the   Builder  "],
            ["User-Agent", "wif-tool/1.0"],
        ],
        payload="unsigned",
    ),
    dict(
        name="s3-multipart-upload-part-query",
        mode="header", rules="s3", service="s3", region="us-east-1",
        time="2024-01-01T00:00:00Z",
        method="PUT", scheme="https", host="examplebucket.s3.amazonaws.com",
        path=vhost_key_path("videos/clip 01.mp4"),
        query=query_of([["partNumber", "3"], ["uploadId", "VXBsb2FkIElEIGZvciA2aWWpbmcncyBteS1tb3ZpZS5tMnRzIHVwbG9hZA"]]),
        headers=[["Content-Length", "11"]],
        body="hello world",
        payload="bytes",
    ),
    dict(
        name="s3-delete-objects-post",
        mode="header", rules="s3", service="s3", region="us-east-1",
        time="2024-01-01T00:00:00Z",
        method="POST", scheme="https", host="examplebucket.s3.amazonaws.com",
        path="/", query="delete=",
        headers=[["Content-Type", "application/xml"], ["Content-MD5", "1B2M2Y8AsgTpgAmY7PhCfg=="]],
        body="<Delete><Object><Key>a b</Key></Object></Delete>",
        payload="bytes",
    ),
    dict(
        name="s3-local-endpoint-with-port",
        mode="header", rules="s3", service="s3", region="us-east-1",
        time="2024-01-01T00:00:00Z",
        method="GET", scheme="http", host="127.0.0.1:9000",
        path=s3_key_path("wif-users", "users/alice/notes.txt"), query="",
        headers=[],
        payload="empty",
    ),
    # --- S3, presigned URLs -------------------------------------------------------
    dict(
        name="s3-presign-get",
        mode="query", rules="s3", service="s3", region="us-east-1", expires=86400,
        time="2013-05-24T00:00:00Z",
        method="GET", scheme="https", host="examplebucket.s3.amazonaws.com",
        path=vhost_key_path("test.txt"), query="",
        headers=[],
        payload="unsigned",
    ),
    dict(
        name="s3-presign-get-session-token-special-key",
        mode="query", rules="s3", service="s3", region="eu-west-3", expires=900, token=True,
        time="2024-02-29T23:59:59Z",
        method="GET", scheme="https", host="s3.eu-west-3.amazonaws.com",
        path=s3_key_path("wif-users", "users/alice/My Report (final)+v2=ok~é%2F..//x.pdf"),
        query="",
        headers=[],
        payload="unsigned",
    ),
    dict(
        name="s3-presign-get-response-overrides",
        mode="query", rules="s3", service="s3", region="us-east-1", expires=3600,
        time="2024-01-01T00:00:00Z",
        method="GET", scheme="https", host="examplebucket.s3.amazonaws.com",
        path=vhost_key_path("report.csv"),
        query=query_of([
            ["response-content-disposition", 'attachment; filename="a b+c.csv"'],
            ["response-content-type", "text/csv"],
        ]),
        headers=[],
        payload="unsigned",
    ),
    dict(
        name="s3-presign-put-max-expiry",
        mode="query", rules="s3", service="s3", region="us-east-1", expires=604800,
        time="2024-01-01T00:00:00Z",
        method="PUT", scheme="https", host="examplebucket.s3.amazonaws.com",
        path=vhost_key_path("uploads/new object.bin"), query="",
        headers=[["Content-Type", "application/octet-stream"]],
        payload="unsigned",
    ),
    # --- STS and a standard service -----------------------------------------------
    dict(
        name="sts-assume-role-with-web-identity-form",
        mode="header", rules="standard", service="sts", region="us-east-1",
        time="2024-05-01T10:20:30Z",
        method="POST", scheme="https", host="sts.amazonaws.com",
        path="/", query="",
        headers=[["Content-Type", "application/x-www-form-urlencoded; charset=utf-8"]],
        body=percent_encode_sequence([
            ["Action", "AssumeRoleWithWebIdentity"],
            ["RoleArn", "arn:aws:iam::123456789012:role/wif-users"],
            ["RoleSessionName", "alice@example.com"],
            ["WebIdentityToken", "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJl"],
            ["Version", "2011-06-15"],
        ]),
        payload="bytes",
    ),
    dict(
        name="sts-get-caller-identity-query-session-token",
        mode="header", rules="standard", service="sts", region="eu-west-1", token=True,
        time="2024-05-01T10:20:30Z",
        method="GET", scheme="https", host="sts.eu-west-1.amazonaws.com",
        path="/", query=query_of([["Action", "GetCallerIdentity"], ["Version", "2011-06-15"]]),
        headers=[],
        payload="empty",
    ),
    dict(
        name="sts-presign-get-caller-identity",
        mode="query", rules="standard", service="sts", region="us-east-1", expires=60, token=True,
        time="2024-05-01T10:20:30Z",
        method="GET", scheme="https", host="sts.amazonaws.com",
        path="/", query=query_of([["Action", "GetCallerIdentity"], ["Version", "2011-06-15"]]),
        headers=[["x-k8s-aws-id", "my-cluster"]],
        payload="empty",
    ),
    dict(
        name="standard-path-normalised-and-encoded-twice",
        mode="header", rules="standard", service="execute-api", region="us-east-1",
        time="2024-01-01T00:00:00Z",
        method="GET", scheme="https", host="abc123.execute-api.us-east-1.amazonaws.com",
        path="/prod//items/a%20b/./c%2Fd/../é+~", query="q=a%20b&a=1",
        headers=[],
        payload="empty",
    ),
]


class FixedClock:
    """Replaces the clock botocore.auth reads, for the duration of a `with` block."""

    def __init__(self, moment):
        self.moment = moment
        self.saved = None

    def __enter__(self):
        self.saved = botocore.auth.get_current_datetime
        botocore.auth.get_current_datetime = lambda: self.moment
        return self

    def __exit__(self, *exc):
        botocore.auth.get_current_datetime = self.saved


def recording(signer_class):
    """A subclass of a botocore signer that keeps its intermediate results."""

    class Recording(signer_class):
        def canonical_request(self, request):
            self.recorded_canonical_request = super().canonical_request(request)
            return self.recorded_canonical_request

        def string_to_sign(self, request, canonical_request):
            self.recorded_string_to_sign = super().string_to_sign(request, canonical_request)
            return self.recorded_string_to_sign

        def signature(self, string_to_sign, request):
            self.recorded_signature = super().signature(string_to_sign, request)
            return self.recorded_signature

    return Recording


def signer_for(case, credentials):
    s3 = case["rules"] == "s3"
    if case["mode"] == "header":
        cls = botocore.auth.S3SigV4Auth if s3 else botocore.auth.SigV4Auth
        return recording(cls)(credentials, case["service"], case["region"])
    cls = botocore.auth.S3SigV4QueryAuth if s3 else botocore.auth.SigV4QueryAuth
    return recording(cls)(credentials, case["service"], case["region"], expires=case["expires"])


def run_case(case):
    token = SESSION_TOKEN if case.get("token") else None
    credentials = Credentials(ACCESS_KEY, SECRET_KEY, token)
    moment = datetime.datetime.strptime(case["time"], "%Y-%m-%dT%H:%M:%SZ")
    url = f"{case['scheme']}://{case['host']}{case['path']}"
    if case["query"]:
        url += "?" + case["query"]
    body = case.get("body", "").encode("utf-8")
    request = AWSRequest(method=case["method"], url=url, data=body)
    for name, value in case["headers"]:
        request.headers[name] = value
    if case["payload"] == "unsigned" and case["mode"] == "header":
        # How botocore turns body signing off for S3 (the client's s3 config).
        request.context["client_config"] = SimpleNamespace(s3={"payload_signing_enabled": False})
        request.context["payload_signing_enabled"] = False

    signer = signer_for(case, credentials)
    original_headers = {name.lower() for name, _ in case["headers"]}
    with FixedClock(moment):
        signer.add_auth(request)

    result = {
        "name": case["name"],
        "mode": case["mode"],
        "rules": case["rules"],
        "service": case["service"],
        "region": case["region"],
        "time": case["time"],
        "expires": case.get("expires"),
        "session_token": token,
        "method": case["method"],
        "scheme": case["scheme"],
        "host": case["host"],
        "path": case["path"],
        "query": case["query"],
        "headers": case["headers"],
        "body": case.get("body", ""),
        "payload": case["payload"],
        "expected": {
            "canonical_request": signer.recorded_canonical_request,
            "string_to_sign": signer.recorded_string_to_sign,
            "signature": signer.recorded_signature,
        },
    }
    if case["mode"] == "header":
        added = [
            [name, value]
            for name, value in request.headers.items()
            if name.lower() not in original_headers
        ]
        result["expected"]["added_headers"] = sorted(added, key=lambda pair: pair[0].lower())
    else:
        result["expected"]["url"] = request.url
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", default=DEFAULT_OUTPUT, help="file to write, or - for stdout")
    arguments = parser.parse_args()

    document = {
        "generator": "scripts/sigv4-oracle.py",
        "access_key_id": ACCESS_KEY,
        "secret_access_key": SECRET_KEY,
        "cases": [run_case(case) for case in CASES],
    }
    text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    if arguments.output == "-":
        sys.stdout.write(text)
    else:
        with open(arguments.output, "w", encoding="utf-8") as handle:
            handle.write(text)
        sys.stderr.write(f"wrote {len(document['cases'])} cases to {os.path.normpath(arguments.output)}\n")


if __name__ == "__main__":
    main()

"""AssumeRoleWithWebIdentity requests per second under wrk, against swift-wif's local stack (RS256
verification, trust policy evaluation, sealed session), moto_server (verifies nothing) and SeaweedFS
(RS256 verification through the local stack's JWKS), in one run, twice: with one token repeated, as a
client that assumes a role many times with the token it holds (the local stack verifies a token once
and then checks only its times), and with a fresh token on every request, so that every request is
verified in full. Every server must answer 200 to every request, or the run fails.
Usage: sts_throughput.py [seconds] [connections]"""
import os
import shutil
import tempfile
import json
import sys
import urllib.parse
import urllib.request

import servers

SECONDS = int(sys.argv[1]) if len(sys.argv) > 1 else 10
CONNECTIONS = int(sys.argv[2]) if len(sys.argv) > 2 else 16
# The fresh-token runs are shorter: each request takes a token of its own, and minting costs about a
# millisecond a token. wrk fails the run if it needs more than there are.
FRESH_SECONDS = 3
FRESH_TOKENS = 64_000


def form(token, role_arn):
    return urllib.parse.urlencode({
        "Action": "AssumeRoleWithWebIdentity", "Version": "2011-06-15", "RoleArn": role_arn,
        "RoleSessionName": "bench", "WebIdentityToken": token, "DurationSeconds": "3600",
    })


def check_once(endpoint, body):
    request = urllib.request.Request(endpoint + "/", data=body.encode(), method="POST",
                                     headers={"Content-Type": "application/x-www-form-urlencoded"})
    with urllib.request.urlopen(request, timeout=10) as response:
        text = response.read().decode()
    if "<AccessKeyId>" not in text:
        raise RuntimeError(f"{endpoint} did not issue credentials: {text[:300]}")


def wrk(endpoint, body):
    return servers.wrk(endpoint, body, {"Content-Type": "application/x-www-form-urlencoded"}, SECONDS, CONNECTIONS,
                       p99=True)


def fresh(endpoint, tokens, role_arn, work):
    """wrk with a distinct token in every request."""
    path = os.path.join(work, "bodies.txt")
    with open(path, "w") as file:
        for token in tokens:
            file.write(form(token, role_arn) + "\n")
    return servers.wrk_bodies(endpoint, path, {"Content-Type": "application/x-www-form-urlencoded"},
                              FRESH_SECONDS, CONNECTIONS)


def main():
    tool = servers.wif_tool()
    repeated, fresh_results = {}, {}
    work = tempfile.mkdtemp(prefix="wif-bench-sts-")
    try:
        measure(tool, work, repeated, fresh_results)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    report(repeated, fresh_results)


def measure(tool, work, repeated, fresh_results):
    with servers.LocalStack(tool) as local:
        grant = local.token("alice")
        tokens = local.tokens("bench", FRESH_TOKENS)
        body = form(grant["token"], grant["roleArn"])
        check_once(local.endpoint, body)
        repeated["swift-wif local"] = wrk(local.endpoint, body)
        fresh_results["swift-wif local"] = fresh(local.endpoint, tokens, grant["roleArn"], work)
        with servers.Moto() as moto:
            moto_body = form(grant["token"], "arn:aws:iam::123456789012:role/bench")
            check_once(moto.endpoint, moto_body)
            repeated["moto_server"] = wrk(moto.endpoint, moto_body)
        issuer = json.load(urllib.request.urlopen(local.endpoint + "/.well-known/openid-configuration"))
        with servers.SeaweedFS(issuer["issuer"], issuer["jwks_uri"], grant.get("audience", "wif-local"),
                               "wif-personal") as weed:
            weed_role = "arn:aws:iam::role/PerUser"
            weed_body = form(grant["token"], weed_role)
            check_once(weed.endpoint, weed_body)
            repeated["SeaweedFS"] = wrk(weed.endpoint, weed_body)
            fresh_results["SeaweedFS"] = fresh(weed.endpoint, tokens, weed_role, work)


def report(repeated, fresh_results):
    print(f"AssumeRoleWithWebIdentity, wrk -t2 -c{CONNECTIONS}, one machine (client and server share it)")
    for title, results in [(f"one token repeated, {SECONDS} s (the local stack verifies it once, then checks its times)",
                            repeated),
                           (f"a fresh token on every request, {FRESH_SECONDS} s (every request verified in full)",
                            fresh_results)]:
        ours = results["swift-wif local"][0]
        print(f"\n{title}")
        print(f"{'server':<18} {'requests/s':>11} {'p50':>9} {'p99':>9} {'swift-wif ×':>12}")
        for name, (rate, p50, p99) in results.items():
            print(f"{name:<18} {rate:>11,.0f} {p50:>9} {p99:>9} {ours / rate:>11.2f}×")
    target = fresh_results["swift-wif local"][0] / fresh_results["SeaweedFS"][0]
    print(f"\ntarget: the local stack at 1.5× SeaweedFS's rate or more: repeated "
          f"{repeated['swift-wif local'][0] / repeated['SeaweedFS'][0]:.2f}×, fresh {target:.2f}×")


if __name__ == "__main__":
    main()

"""AssumeRoleWithWebIdentity requests per second under wrk, against swift-wif's local stack (RS256
verification, trust policy evaluation, sealed session), moto_server (verifies nothing) and SeaweedFS
(RS256 verification through the local stack's JWKS), in one run, twice: with one token repeated, as a
client that assumes a role many times with the token it holds (the local stack verifies a token once
and then checks only its times), and with a fresh token on every request, so that every request is
verified in full. With one token repeated, the local stack and SeaweedFS take turns, round after round,
so that a slow spell of the machine falls on both alike (single runs moved SeaweedFS's rate by half), and
each figure is the median over the rounds. Every server must answer 200 to every request, or the run fails.
Usage: sts_throughput.py [seconds per turn] [connections] [rounds]"""
import os
import shutil
import tempfile
import json
import sys
import urllib.parse
import urllib.request

import servers

SECONDS = int(sys.argv[1]) if len(sys.argv) > 1 else 5
CONNECTIONS = int(sys.argv[2]) if len(sys.argv) > 2 else 16
ROUNDS = int(sys.argv[3]) if len(sys.argv) > 3 else 3
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


def median_run(runs):
    """The run with the median rate, and the rates of all the rounds."""
    ordered = sorted(runs)
    return ordered[len(ordered) // 2], [rate for rate, _, _ in runs]


def measure(tool, work, repeated, fresh_results):
    with servers.LocalStack(tool) as local:
        grant = local.token("alice")
        tokens = local.tokens("bench", FRESH_TOKENS)
        body = form(grant["token"], grant["roleArn"])
        check_once(local.endpoint, body)
        fresh_results["swift-wif local"] = fresh(local.endpoint, tokens, grant["roleArn"], work)
        with servers.Moto() as moto:
            moto_body = form(grant["token"], "arn:aws:iam::123456789012:role/bench")
            check_once(moto.endpoint, moto_body)
            moto_run = median_run([wrk(moto.endpoint, moto_body)])
        issuer = json.load(urllib.request.urlopen(local.endpoint + "/.well-known/openid-configuration"))
        with servers.SeaweedFS(issuer["issuer"], issuer["jwks_uri"], grant.get("audience", "wif-local"),
                               "wif-personal") as weed:
            weed_role = "arn:aws:iam::role/PerUser"
            weed_body = form(grant["token"], weed_role)
            check_once(weed.endpoint, weed_body)
            fresh_results["SeaweedFS"] = fresh(weed.endpoint, tokens, weed_role, work)
            turns = {"swift-wif local": (local.endpoint, body), "SeaweedFS": (weed.endpoint, weed_body)}
            runs = {name: [] for name in turns}
            for _ in range(ROUNDS):
                for name, (endpoint, request_body) in turns.items():
                    runs[name].append(wrk(endpoint, request_body))
            # The local stack first, as the report compares the others with it.
            repeated["swift-wif local"] = median_run(runs["swift-wif local"])
            repeated["moto_server"] = moto_run
            repeated["SeaweedFS"] = median_run(runs["SeaweedFS"])


def report(repeated, fresh_results):
    print(f"AssumeRoleWithWebIdentity, wrk -t2 -c{CONNECTIONS}, one machine (client and server share it)")
    print(f"\none token repeated, {ROUNDS} rounds of {SECONDS} s, the local stack and SeaweedFS in turn; the round with "
          "the median rate (the local stack verifies the token once, then checks its times)")
    ours = repeated["swift-wif local"][0][0]
    print(f"{'server':<18} {'requests/s':>11} {'p50':>9} {'p99':>9} {'swift-wif ×':>12}   requests/s in each round")
    for name, ((rate, p50, p99), rates) in repeated.items():
        each = " ".join(f"{value:,.0f}" for value in rates)
        print(f"{name:<18} {rate:>11,.0f} {p50:>9} {p99:>9} {ours / rate:>11.2f}×   {each}")
    ratios = [mine / theirs for mine, theirs in zip(repeated["swift-wif local"][1], repeated["SeaweedFS"][1])]
    print("ratio to SeaweedFS in each round: " + " ".join(f"{ratio:.2f}×" for ratio in ratios))
    print(f"\na fresh token on every request, {FRESH_SECONDS} s (every request verified in full)")
    ours = fresh_results["swift-wif local"][0]
    print(f"{'server':<18} {'requests/s':>11} {'p50':>9} {'p99':>9} {'swift-wif ×':>12}")
    for name, (rate, p50, p99) in fresh_results.items():
        print(f"{name:<18} {rate:>11,.0f} {p50:>9} {p99:>9} {ours / rate:>11.2f}×")
    repeated_ratio = repeated["swift-wif local"][0][0] / repeated["SeaweedFS"][0][0]
    target = fresh_results["swift-wif local"][0] / fresh_results["SeaweedFS"][0]
    print(f"\ntarget: the local stack at 1.5× SeaweedFS's rate or more: repeated "
          f"{repeated_ratio:.2f}× (medians), fresh {target:.2f}×")


if __name__ == "__main__":
    main()

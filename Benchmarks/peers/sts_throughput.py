"""AssumeRoleWithWebIdentity requests per second under wrk, against swift-wif's local stack (RS256
verification, trust policy evaluation, sealed session), moto_server (verifies nothing) and SeaweedFS
(RS256 verification through the local stack's JWKS), in one run. Every server must answer 200 to
every request, or the run fails. Usage: sts_throughput.py [seconds] [connections]"""
import json
import sys
import urllib.parse
import urllib.request

import servers

SECONDS = int(sys.argv[1]) if len(sys.argv) > 1 else 10
CONNECTIONS = int(sys.argv[2]) if len(sys.argv) > 2 else 16


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
    return servers.wrk(endpoint, body, {"Content-Type": "application/x-www-form-urlencoded"}, SECONDS, CONNECTIONS)


def main():
    tool = servers.wif_tool()
    results = {}
    with servers.LocalStack(tool) as local:
        grant = local.token("alice")
        body = form(grant["token"], grant["roleArn"])
        check_once(local.endpoint, body)
        results["swift-wif local"] = wrk(local.endpoint, body)
        with servers.Moto() as moto:
            moto_body = form(grant["token"], "arn:aws:iam::123456789012:role/bench")
            check_once(moto.endpoint, moto_body)
            results["moto_server"] = wrk(moto.endpoint, moto_body)
        issuer = json.load(urllib.request.urlopen(local.endpoint + "/.well-known/openid-configuration"))
        with servers.SeaweedFS(issuer["issuer"], issuer["jwks_uri"], grant.get("audience", "wif-local"),
                               "wif-personal") as weed:
            weed_body = form(grant["token"], "arn:aws:iam::role/PerUser")
            check_once(weed.endpoint, weed_body)
            results["SeaweedFS"] = wrk(weed.endpoint, weed_body)
    ours = results["swift-wif local"][0]
    print(f"AssumeRoleWithWebIdentity, wrk -t2 -c{CONNECTIONS} -d{SECONDS}s, one machine (client and server share it)")
    print(f"{'server':<18} {'requests/s':>11} {'p50':>9} {'swift-wif ×':>12}")
    for name, (rate, p50) in results.items():
        print(f"{name:<18} {rate:>11,.0f} {p50:>9} {ours / rate:>11.2f}×")


if __name__ == "__main__":
    main()

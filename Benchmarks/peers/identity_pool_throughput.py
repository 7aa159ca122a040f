"""GetCredentialsForIdentity requests per second under wrk, for a guest and for a signed-in identity,
against swift-wif's local stack (the login's RS256 ID token verified, the pool's role chosen, the role's
trust policy evaluated, a sealed session issued) and moto_server's cognito-identity (verifies nothing),
in one run. Every answer must be 200 with credentials, or the run fails.
Usage: identity_pool_throughput.py [seconds] [connections]"""
import json
import sys
import urllib.request

import servers

SECONDS = int(sys.argv[1]) if len(sys.argv) > 1 else 10
CONNECTIONS = int(sys.argv[2]) if len(sys.argv) > 2 else 16
TARGET = "AWSCognitoIdentityService."
POOL = "us-east-1:00000000-0000-4000-8000-000000000001"
# moto routes by the signing service named here; the local stack ignores the header on these unsigned calls.
SIGNING_HINT = ("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20261126/us-east-1/cognito-identity/aws4_request, "
                "SignedHeaders=host, Signature=0")


def call(endpoint, operation, body):
    request = urllib.request.Request(endpoint + "/", data=json.dumps(body).encode(), method="POST", headers={
        "Content-Type": "application/x-amz-json-1.1", "X-Amz-Target": TARGET + operation,
        "Authorization": SIGNING_HINT})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def credentials_body(endpoint, pool, logins):
    identity = call(endpoint, "GetId", {"IdentityPoolId": pool, "Logins": logins} if logins else {"IdentityPoolId": pool})
    body = {"IdentityId": identity["IdentityId"]}
    if logins:
        body["Logins"] = logins
    answer = call(endpoint, "GetCredentialsForIdentity", body)
    if "AccessKeyId" not in answer.get("Credentials", {}):
        raise RuntimeError(f"{endpoint} gave no credentials: {answer}")
    return json.dumps(body)


def wrk(endpoint, body):
    return servers.wrk(endpoint, body, {
        "Content-Type": "application/x-amz-json-1.1", "X-Amz-Target": TARGET + "GetCredentialsForIdentity",
        "Authorization": SIGNING_HINT}, SECONDS, CONNECTIONS)


def moto_pool(endpoint):
    answer = call(endpoint, "CreateIdentityPool", {
        "IdentityPoolName": "bench", "AllowUnauthenticatedIdentities": True,
        "SupportedLoginProviders": {"accounts.google.com": "wif-local.apps.googleusercontent.com"}})
    return answer["IdentityPoolId"]


def main():
    tool = servers.wif_tool()
    results = {}
    with servers.LocalStack(tool) as local:
        token = local.token("alice", provider="google")["token"]
        logins = {"accounts.google.com": token}
        results[("guest", "swift-wif local")] = wrk(local.endpoint, credentials_body(local.endpoint, POOL, None))
        results[("signed in", "swift-wif local")] = wrk(local.endpoint, credentials_body(local.endpoint, POOL, logins))
        with servers.Moto() as moto:
            pool = moto_pool(moto.endpoint)
            results[("guest", "moto_server")] = wrk(moto.endpoint, credentials_body(moto.endpoint, pool, None))
            results[("signed in", "moto_server")] = wrk(moto.endpoint, credentials_body(moto.endpoint, pool, logins))
    print(f"GetCredentialsForIdentity, wrk -t2 -c{CONNECTIONS} -d{SECONDS}s, one machine (client and server share it)")
    print(f"{'identity':<10} {'server':<16} {'requests/s':>11} {'p50':>9} {'swift-wif ×':>12}")
    for (kind, name), (rate, p50) in results.items():
        ours = results[(kind, "swift-wif local")][0]
        print(f"{kind:<10} {name:<16} {rate:>11,.0f} {p50:>9} {ours / rate:>11.2f}×")


if __name__ == "__main__":
    main()

"""Authorized API requests per second under wrk, one mode at a time, beside the same route of an API that
takes no credentials, on the local stack in one run: GET /apis/<api>/Todo/<id> with the API key, with a
user pool ID token (RS256, verified against the issuer's key, then the owner rule), with SigV4 signed by
identity pool credentials (signature verified, execute-api:Invoke decided by the role's policies, then the
private IAM rule), with an OIDC token of the stack's issuer, with a custom token that a Lambda authorizer
(a Python program) accepted once, and with no authorization at all. Every answer must be 200, or the run fails.
The cost of a mode is 1 - (its rate / the unauthorized rate). The modes take turns, round after round,
so that a slow spell of the machine falls on every mode alike; each mode's figure is its median over the
rounds, and the costs of the single rounds are printed beside it.
Usage: api_throughput.py [seconds per turn] [connections] [rounds]"""
import json
import os
import statistics
import tempfile
import sys
import urllib.request

import servers

SECONDS = int(sys.argv[1]) if len(sys.argv) > 1 else 5
CONNECTIONS = int(sys.argv[2]) if len(sys.argv) > 2 else 16
ROUNDS = int(sys.argv[3]) if len(sys.argv) > 3 else 5
POOL = "us-east-1:00000000-0000-4000-8000-000000000001"
USER_POOL_KEY = "cognito-idp.us-east-1.amazonaws.com/us-east-1_wiflocal"
API_KEY = "da2-wiflocaldevelopmentapikey00"
# The same model as the default todo API's, with no rules: an API whose only mode is NONE.
OPEN_API = {"apis": [{"name": "open", "schema": "type Todo @model { id: ID! content: String! owner: String }",
                      "authorizationModes": ["NONE"]}]}
# The same model for OPENID_CONNECT (the stack's own issuer) and for AWS_LAMBDA (a Python function that
# accepts one token; its answer is kept for the token, as AppSync keeps it, so the figure is for a
# client that reuses its token).
MODE_APIS = [
    {"name": "corp", "schema": "type Todo @model @auth(rules: [{ allow: private, provider: oidc }]) { id: ID! content: String! owner: String }",
     "authorizationModes": ["OPENID_CONNECT"]},
    {"name": "custom", "schema": "type Todo @model @auth(rules: [{ allow: custom }]) { id: ID! content: String! owner: String }",
     "authorizationModes": ["AWS_LAMBDA"], "lambdaAuthorizer": {"command": [sys.executable, "authorizer.py"], "resultTTLSeconds": 3600}},
]
LAMBDA_TOKEN = "custom-bench-token"
AUTHORIZER = ("import json, sys\n"
              "event = json.load(sys.stdin)\n"
              f"print(json.dumps({{'isAuthorized': event['authorizationToken'] == {LAMBDA_TOKEN!r}, 'resolverContext': {{'sub': 'bench'}}}}))\n")


def request(url, method="GET", body=None, headers=None):
    data = json.dumps(body).encode() if body is not None else None
    call = urllib.request.Request(url, data=data, method=method, headers=headers or {})
    with urllib.request.urlopen(call, timeout=10) as response:
        return json.loads(response.read())


def identity_pool_credentials(endpoint, token):
    def cognito(operation, body):
        return request(endpoint + "/", "POST", body, {
            "Content-Type": "application/x-amz-json-1.1", "X-Amz-Target": "AWSCognitoIdentityService." + operation})
    logins = {USER_POOL_KEY: token}
    identity = cognito("GetId", {"IdentityPoolId": POOL, "Logins": logins})["IdentityId"]
    return cognito("GetCredentialsForIdentity", {"IdentityId": identity, "Logins": logins})["Credentials"]


def sigv4_headers(url, credentials):
    """Headers of a GET signed once with botocore; wrk replays them, and the stack verifies each copy
    in full (within its 15-minute clock skew)."""
    from botocore.auth import SigV4Auth
    from botocore.awsrequest import AWSRequest
    from botocore.credentials import Credentials
    signed = AWSRequest(method="GET", url=url)
    SigV4Auth(Credentials(credentials["AccessKeyId"], credentials["SecretKey"], credentials["SessionToken"]),
              "execute-api", "us-east-1").add_auth(signed)
    return {name: value for name, value in signed.headers.items()}


def main():
    try:
        import botocore  # noqa: F401
    except ImportError:
        os.system(f"{sys.executable} -m pip install --quiet --disable-pip-version-check botocore")
    tool = servers.wif_tool()
    folder = tempfile.mkdtemp(prefix="wif-bench-api-")
    config = os.path.join(folder, "config.json")
    authorizer = os.path.join(folder, "authorizer.py")
    with open(authorizer, "w") as file:
        file.write(AUTHORIZER)
    apis = OPEN_API["apis"] + [dict(api) for api in MODE_APIS]
    apis[-1]["lambdaAuthorizer"] = dict(apis[-1]["lambdaAuthorizer"], command=[sys.executable, authorizer])
    with open(config, "w") as file:
        json.dump({"apis": apis}, file)
    results = {}
    with servers.LocalStack(tool, ["--config", config]) as local:
        token = local.token("alice", provider="cognito-idp")["token"]
        base = local.endpoint + "/apis"
        owned = request(base + "/todo/Todo", "POST", {"content": "bench"}, {"Authorization": token})["id"]
        open_id = request(base + "/open/Todo", "POST", {"content": "bench"})["id"]
        path = f"/apis/todo/Todo/{owned}"
        credentials = identity_pool_credentials(local.endpoint, token)
        oidc = local.token("alice", provider="oidc")["token"]
        oidc_id = request(base + "/corp/Todo", "POST", {"content": "bench"}, {"Authorization": oidc})["id"]
        custom_id = request(base + "/custom/Todo", "POST", {"content": "bench"}, {"Authorization": LAMBDA_TOKEN})["id"]
        modes = [
            ("NONE (no authorization)", f"/apis/open/Todo/{open_id}", {}),
            ("API_KEY", path, {"x-api-key": API_KEY}),
            ("AMAZON_COGNITO_USER_POOLS", path, {"Authorization": token}),
            ("AWS_IAM (SigV4)", path, sigv4_headers(local.endpoint + path, credentials)),
            ("OPENID_CONNECT", f"/apis/corp/Todo/{oidc_id}", {"Authorization": oidc}),
            ("AWS_LAMBDA (kept answer)", f"/apis/custom/Todo/{custom_id}", {"Authorization": LAMBDA_TOKEN}),
        ]
        for _ in range(ROUNDS):
            for name, route, headers in modes:
                rate, p50 = servers.wrk(local.endpoint, None, headers, SECONDS, CONNECTIONS, method="GET", path=route)
                results.setdefault(name, []).append((rate, p50))
    baseline_name = "NONE (no authorization)"
    baseline = statistics.median(rate for rate, _ in results[baseline_name])
    print(f"GET one record, wrk -t2 -c{CONNECTIONS} -d{SECONDS}s per turn, {ROUNDS} rounds of every mode in turn, "
          "one machine (client and server share it); medians over the rounds")
    print(f"{'mode':<28} {'requests/s':>11} {'p50':>9} {'of unauthorized':>16} {'cost':>6}   cost in each round")
    for name, runs in results.items():
        rate = statistics.median(rate for rate, _ in runs)
        p50 = sorted(runs)[len(runs) // 2][1]
        rounds = " ".join(f"{1 - mine / base:.0%}" for (mine, _), (base, _) in zip(runs, results[baseline_name]))
        print(f"{name:<28} {rate:>11,.0f} {p50:>9} {rate / baseline:>15.2f}× {1 - rate / baseline:>6.0%}   {rounds}")


if __name__ == "__main__":
    main()

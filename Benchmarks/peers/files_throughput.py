"""The file store as a user runs it: `wif-tool` against s5cmd and the aws CLI on the same server in one
run, first SeaweedFS (`weed mini`, neutral ground, its STS trusting the local stack's issuer), then
swift-wif's local stack (`wif-tool local serve`).

On each server wif-tool signs in with a web-identity token (`wif-tool login --token …`), and s5cmd and
aws are given temporary credentials for the same token, role and policy, so all three tools write into
the same user folder. Cases: put and get of one large file (1 GiB), of one of 256 MiB, and of 1,000
files of 4 KiB, each
repeated (rounds rotate which tool goes first) and every download compared with its source by SHA-256;
the peak resident memory of the large put and get; and the wall time of cold listings, of the 1,000
files and of a prefix naming one file (a fresh process each time, credentials already stored), by
`wif-tool list`, `s5cmd ls` and `aws s3 ls`, timed by hyperfine.

Ratios are the peer's time over wif-tool's: above 1 means wif-tool was faster. Each tool runs with its
defaults (`aws s3 cp` with its own multipart settings: 8 MiB parts, 10 at a time).

Usage: files_throughput.py [--quick] [--rounds N] [--big-mib N] [--mid-mib N] [--small-count N] [--list-runs N]
  --quick: 64 MiB, 16 MiB and 100 files, 2 rounds, 5 list runs, to check the benchmark itself.
  WIF_TOOL=/path/to/wif-tool uses that binary instead of building the release one."""
import argparse
import hashlib
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

import peer_binaries
import servers

BUCKET = "wif-personal"
# SeaweedFS takes the role name from the ARN; wif-tool wants an ARN with an account.
WEED_ROLE = "arn:aws:iam::000000000000:role/PerUser"
TEMPLATE = "oidc/{id}/"
MIB = 1 << 20


def arguments():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, to check the benchmark itself")
    parser.add_argument("--rounds", type=int)
    parser.add_argument("--big-mib", type=int)
    parser.add_argument("--mid-mib", type=int)
    parser.add_argument("--small-count", type=int)
    parser.add_argument("--small-kib", type=int, default=4)
    parser.add_argument("--list-runs", type=int)
    options = parser.parse_args()
    quick = options.quick
    options.rounds = options.rounds or (2 if quick else 3)
    options.big_mib = options.big_mib or (64 if quick else 1024)
    options.mid_mib = options.mid_mib or (16 if quick else 256)
    options.small_count = options.small_count or (100 if quick else 1000)
    options.list_runs = options.list_runs or (5 if quick else 20)
    return options


# The peers' own programs, found (and installed when missing) by `install_missing`.
S5CMD = "s5cmd"
AWS = "aws"
# GNU time, which measures peak memory (`execute`).
GNU_TIME = "/usr/bin/time"


def install_missing():
    global S5CMD, AWS, GNU_TIME
    # s5cmd runs from a fresh copy, as wif-tool does, so both programs are cached alike (`installed_copy`).
    S5CMD, AWS = servers.installed_copy(peer_binaries.s5cmd()), peer_binaries.aws()
    if shutil.which("hyperfine") is None:
        sys.exit("the files benchmark times cold listings with hyperfine (apt-get install hyperfine)")
    GNU_TIME = shutil.which("time") or GNU_TIME
    version = subprocess.run([GNU_TIME, "--version"], capture_output=True, text=True) if os.path.exists(GNU_TIME) else None
    if version is None or "GNU" not in version.stdout + version.stderr:
        sys.exit("the files benchmark measures peak memory with GNU time (apt-get install time)")


class Measured:
    """Wall time and peak resident set size of one finished command."""

    def __init__(self, seconds, peak_bytes):
        self.seconds, self.peak_bytes = seconds, peak_bytes


def execute(arguments, environment, cwd=None, peak=False):
    """Runs a command to completion, and with `peak` also measures its peak memory: the kernel's
    high-water mark of its resident set, as GNU time reports it (`%M`, the figure of `/usr/bin/time -v`),
    exact for the process where sampling could miss a short peak.

    GNU time starts the command, not this script: a process started from Python inherits Python's own
    high-water mark (the kernel keeps the larger of the parent's image and the new program's), so
    `ru_maxrss` from `wait4` here would never show less than this script's size, 20 to 30 MiB. The
    launcher adds well under a millisecond to the large transfers it is used for, for every tool alike."""
    with tempfile.TemporaryFile() as errors, tempfile.NamedTemporaryFile("r") as report:
        command = [GNU_TIME, "-f", "%M", "-o", report.name, *arguments] if peak else arguments
        start = time.perf_counter()
        process = subprocess.Popen(command, env=environment, cwd=cwd, stdin=subprocess.DEVNULL,
                                   stdout=subprocess.DEVNULL, stderr=errors)
        process.wait()
        seconds = time.perf_counter() - start
        if process.returncode != 0:
            errors.seek(0)
            raise RuntimeError(f"{' '.join(arguments)} exited {process.returncode}:\n"
                               f"{errors.read().decode(errors='replace')[-2000:]}")
        peak_bytes = int(report.read().split()[-1]) * 1024 if peak else None
    return Measured(seconds, peak_bytes)


def digest(path):
    sha = hashlib.sha256()
    with open(path, "rb") as file:
        while chunk := file.read(MIB):
            sha.update(chunk)
    return sha.hexdigest()


def make_sources(work, options):
    """The large files by size name ("big", "mid": path and SHA-256), the small files' folder and their
    SHA-256 by name."""
    large = {}
    for size, mib in (("big", options.big_mib), ("mid", options.mid_mib)):
        path = os.path.join(work, f"{size}.bin")
        with open(path, "wb") as file:
            for _ in range(mib):
                file.write(os.urandom(MIB))
        large[size] = (path, digest(path))
    small = os.path.join(work, "small")
    os.makedirs(small)
    digests = {}
    for index in range(options.small_count):
        name = f"file-{index:04}.bin"
        data = os.urandom(options.small_kib * 1024)
        with open(os.path.join(small, name), "wb") as file:
            file.write(data)
        digests[name] = hashlib.sha256(data).hexdigest()
    return large, small, digests


class Client:
    """wif-tool signed in to one server in its own WIF_HOME, and s5cmd and aws with the same credentials."""

    def __init__(self, tool, endpoint, work):
        self.tool, self.endpoint = tool, endpoint
        self.home = tempfile.mkdtemp(prefix="wif-home-", dir=work)
        base = {name: value for name, value in os.environ.items()
                if not name.startswith(("AWS_", "WIF_"))}
        base["AWS_REGION"] = base["AWS_DEFAULT_REGION"] = "us-east-1"
        self.wif_environment = dict(base, WIF_HOME=self.home)
        self.peer_environment = dict(base, AWS_CONFIG_FILE=os.devnull, AWS_SHARED_CREDENTIALS_FILE=os.devnull)
        self.folder = None

    def login(self, token, role_arn, bucket):
        output = subprocess.run(
            [self.tool, "login", "--token", "-", "--provider", "oidc", "--role-arn", role_arn,
             "--endpoint", self.endpoint, "--bucket", bucket, "--partition-template", TEMPLATE, "--json"],
            input=token, env=self.wif_environment, capture_output=True, text=True)
        if output.returncode != 0:
            raise RuntimeError(f"wif-tool login at {self.endpoint} exited {output.returncode}: {output.stderr}")
        summary = json.loads(output.stdout)
        self.folder = f"s3://{summary['bucket']}/{summary['prefix']}"
        # wif-tool keeps its sign-in encrypted; s5cmd and aws get credentials for the same token, role
        # and session name, so the same policy puts them in the same user folder.
        credentials = servers.assume(self.endpoint, token, role_arn, f"wif-{summary['subject']}")
        self.peer_environment.update(credentials)

    def wif(self, *arguments, cwd=None, peak=False):
        return execute([self.tool, *arguments, "--endpoint", self.endpoint, "--quiet"], self.wif_environment, cwd, peak)

    def wif_command(self, *arguments):
        return [self.tool, *arguments, "--endpoint", self.endpoint]

    def s5cmd_command(self, *arguments, log="error"):
        # s5cmd prints what it lists at its info level, so `ls` keeps the default level.
        return [S5CMD, "--endpoint-url", self.endpoint, "--log", log, *arguments]

    def s5cmd(self, *arguments, peak=False):
        return execute(self.s5cmd_command(*arguments), self.peer_environment, peak=peak)

    def aws_command(self, *arguments):
        return [AWS, "--endpoint-url", self.endpoint, *arguments]

    def aws(self, *arguments, peak=False):
        return execute(self.aws_command(*arguments, "--only-show-errors"), self.peer_environment, peak=peak)


def check_file(path, expected, what):
    if digest(path) != expected:
        raise RuntimeError(f"{what}: {path} differs from the upload")


def check_folder(folder, digests, what):
    names = sorted(os.listdir(folder))
    if names != sorted(digests):
        raise RuntimeError(f"{what}: {len(names)} files arrived where {len(digests)} were uploaded")
    for name in names:
        if digest(os.path.join(folder, name)) != digests[name]:
            raise RuntimeError(f"{what}: {name} differs from the upload")


TOOLS = ("wif-tool", "s5cmd", "aws")
PEERS = TOOLS[1:]


def transfers(client, sources, options, work):
    """Seconds and peak bytes of every case, by tool, over the rounds."""
    large, small, small_digests = sources
    folder = "bench/small/"
    commands = {}
    for size, (path, _) in large.items():
        key, name = f"bench/{size}.bin", f"{size}.bin"
        # The peak memory is reported for the large file.
        peak = size == "big"
        commands[f"put {size}"] = {
            "wif-tool": lambda down, path=path, key=key, peak=peak: client.wif("put", path, "--as", key, peak=peak),
            "s5cmd": lambda down, path=path, key=key, peak=peak: client.s5cmd("cp", path, client.folder + key, peak=peak),
            "aws": lambda down, path=path, key=key, peak=peak: client.aws("s3", "cp", path, client.folder + key, peak=peak)}
        commands[f"get {size}"] = {
            "wif-tool": lambda down, key=key, name=name, peak=peak: client.wif(
                "get", key, "-o", os.path.join(down, name), peak=peak),
            "s5cmd": lambda down, key=key, name=name, peak=peak: client.s5cmd(
                "cp", client.folder + key, os.path.join(down, name), peak=peak),
            "aws": lambda down, key=key, name=name, peak=peak: client.aws(
                "s3", "cp", client.folder + key, os.path.join(down, name), peak=peak)}
    commands.update({
        "put small": {"wif-tool": lambda down: client.wif("put", "--recursive", small, "--to", folder),
                      "s5cmd": lambda down: client.s5cmd("cp", small + "/*", client.folder + folder),
                      "aws": lambda down: client.aws("s3", "cp", "--recursive", small, client.folder + folder)},
        "get small": {"wif-tool": lambda down: client.wif("get", "--recursive", folder, "-o", down),
                      "s5cmd": lambda down: client.s5cmd("cp", client.folder + folder + "*", down + "/"),
                      "aws": lambda down: client.aws("s3", "cp", "--recursive", client.folder + folder, down)},
    })
    results = {case: {tool: [] for tool in TOOLS} for case in commands}

    def run_case(case, tool):
        down = tempfile.mkdtemp(prefix="down-", dir=work)
        try:
            measured = commands[case][tool](down)
            if case.startswith("get ") and case[4:] in large:
                size = case[4:]
                check_file(os.path.join(down, f"{size}.bin"), large[size][1], f"{tool} get")
            elif case == "get small":
                check_folder(down, small_digests, f"{tool} get of the folder")
        finally:
            shutil.rmtree(down, ignore_errors=True)
        results[case][tool].append(measured)

    for round_index in range(options.rounds):
        shift = round_index % len(TOOLS)
        order = TOOLS[shift:] + TOOLS[:shift]
        for case in results:
            for tool in order:
                run_case(case, tool)
            # Whichever tool wrote last, the object read next holds the same bytes.
    return results


def cold_lists(client, options, work):
    """hyperfine medians (seconds) of listings by each tool in fresh processes: the small files' folder,
    and a prefix that names only the large file (the size of listing a start-up time shows best)."""
    folder = client.folder + "bench/"
    listings = {
        f"{options.small_count:,} files": (options.small_count, {
            "wif-tool list": (client.wif_command("list", "bench/small/"), client.wif_environment),
            "s5cmd ls": (client.s5cmd_command("ls", folder + "small/*", log="info"), client.peer_environment),
            "aws s3 ls": (client.aws_command("s3", "ls", folder + "small/"), client.peer_environment),
        }),
        "one file": (1, {
            "wif-tool list": (client.wif_command("list", "bench/big"), client.wif_environment),
            "s5cmd ls": (client.s5cmd_command("ls", folder + "big*", log="info"), client.peer_environment),
            "aws s3 ls": (client.aws_command("s3", "ls", folder + "big"), client.peer_environment),
        }),
    }
    return {listing: {name: time_listing(name, command, environment, expected, options, work)
                      for name, (command, environment) in commands.items()}
            for listing, (expected, commands) in listings.items()}


def time_listing(name, command, environment, expected, options, work):
    """(median, minimum, runs) in seconds of `command` listing `expected` entries, under hyperfine."""
    # Every tool must list every matching file, and no other, or its time means nothing.
    listed = subprocess.run(command, env=environment, capture_output=True, text=True, check=True).stdout
    count = sum(1 for line in listed.splitlines() if line.strip())
    if count != expected:
        raise RuntimeError(f"{name} listed {count} entries where {expected} files are")
    export = os.path.join(work, "hyperfine.json")
    runs = options.list_runs if name != "aws s3 ls" else max(3, options.list_runs // 4)
    subprocess.run(["hyperfine", "--shell=none", "--warmup", "1", "--runs", str(runs), "--style", "none",
                    "--export-json", export, " ".join(command)],
                   env=environment, check=True, capture_output=True)
    with open(export) as file:
        times = json.load(file)["results"][0]["times"]
    return statistics.median(times), min(times), runs


def median_seconds(values):
    return statistics.median(value.seconds for value in values)


# The targets: wif-tool at least this much faster than s5cmd on every transfer and cold listing, and
# its peak memory in a 1 GiB put or get under this.
TRANSFER_TARGET = 1.2
MEMORY_TARGET_MIB = 32


def verdict(met, target):
    return f"{target}: {'met' if met else 'missed'}"


def size_text(mib):
    return f"{mib:,} MiB" if mib < 1024 else f"{mib / 1024:g} GiB"


def print_server(name, results, lists, options):
    big, mid = size_text(options.big_mib), size_text(options.mid_mib)
    small = f"{options.small_count:,} × {options.small_kib} KiB"
    print(f"\n== {name} ==")
    print(f"median of {options.rounds} rounds; ratio = the peer's time / wif-tool's (above 1: wif-tool faster)")
    print(f"{'transfer':<22} {'vs s5cmd':>8} {'vs aws':>8}   " + "".join(f"{tool:<24}" for tool in TOOLS)
          + " target")
    for case, label, amount, unit in (("put big", f"put {big}", options.big_mib, "MiB/s"),
                                      ("get big", f"get {big}", options.big_mib, "MiB/s"),
                                      ("put mid", f"put {mid}", options.mid_mib, "MiB/s"),
                                      ("get mid", f"get {mid}", options.mid_mib, "MiB/s"),
                                      ("put small", f"put {small}", options.small_count, "files/s"),
                                      ("get small", f"get {small}", options.small_count, "files/s")):
        seconds = {tool: median_seconds(results[case][tool]) for tool in TOOLS}
        ratios = "".join(f"{seconds[peer] / seconds['wif-tool']:>7.2f}× " for peer in PEERS)
        cells = "".join(f"{seconds[tool]:7.3f} s {amount / seconds[tool]:7,.0f} {unit:<7}" for tool in TOOLS)
        ratio = seconds["s5cmd"] / seconds["wif-tool"]
        print(f"{label:<22} {ratios}  {cells} {verdict(ratio >= TRANSFER_TARGET, f'{TRANSFER_TARGET}× s5cmd')}")
    print(f"\n{'peak memory (max RSS)':<22} " + "".join(f"{tool:>10} " for tool in TOOLS) + "  target")
    for case, label in (("put big", f"put {big}"), ("get big", f"get {big}")):
        peaks = {tool: max(value.peak_bytes for value in results[case][tool]) / MIB for tool in TOOLS}
        target = verdict(peaks["wif-tool"] < MEMORY_TARGET_MIB, f"wif-tool under {MEMORY_TARGET_MIB} MiB")
        print(f"{label:<22} " + "".join(f"{peaks[tool]:>6.1f} MiB " for tool in TOOLS) + f"  {target}")
    for listing, tools in lists.items():
        ours = tools["wif-tool list"][0]
        print(f"\ncold list of {listing}, a fresh process per run (hyperfine); ratio = the tool's median / wif-tool's")
        print(f"{'command':<22} {'ratio':>7} {'median':>10} {'min':>10} {'runs':>5}   target")
        for tool, (median, minimum, runs) in tools.items():
            target = ""
            if tool == "s5cmd ls":
                target = verdict(median / ours >= TRANSFER_TARGET, f"{TRANSFER_TARGET}× s5cmd")
            print(f"{tool:<22} {median / ours:>6.2f}× {median * 1000:>7.1f} ms {minimum * 1000:>7.1f} ms {runs:>5}   {target}")


def version(command):
    try:
        text = subprocess.run(command, capture_output=True, text=True, timeout=30)
        return (text.stdout or text.stderr).strip().splitlines()[0]
    except (OSError, IndexError, subprocess.TimeoutExpired):
        return "unknown"


class ForeignLoad:
    """How much CPU other processes took during the run: the machine's busy time (/proc/stat) less this
    process's and its children's (servers, clients and hyperfine are all waited for by the end)."""

    def __init__(self):
        self.start = self.sample()

    @staticmethod
    def sample():
        with open("/proc/stat") as file:
            fields = [int(value) for value in file.readline().split()[1:]]
        busy = (fields[0] + fields[1] + fields[2] + fields[5] + fields[6] + fields[7]) / os.sysconf("SC_CLK_TCK")
        own = sum(getattr(resource.getrusage(who), field) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
                  for field in ("ru_utime", "ru_stime"))
        return time.monotonic(), busy, own

    def share(self):
        (wall0, busy0, own0), (wall1, busy1, own1) = self.start, self.sample()
        foreign = max(0.0, (busy1 - busy0) - (own1 - own0))
        return foreign / ((wall1 - wall0) * (os.cpu_count() or 1))


def main():
    options = arguments()
    install_missing()
    tool = servers.installed_copy(os.environ["WIF_TOOL"]) if os.environ.get("WIF_TOOL") else servers.wif_tool()
    work = tempfile.mkdtemp(prefix="wif-bench-files-")
    load = ForeignLoad()
    report = []
    try:
        sources = make_sources(work, options)
        with servers.LocalStack(tool) as local:
            grant = local.token("alice")
            issuer = json.load(urllib.request.urlopen(local.endpoint + "/.well-known/openid-configuration"))
            with servers.SeaweedFS(issuer["issuer"], issuer["jwks_uri"], "wif-local", BUCKET) as weed:
                admin = Client(tool, weed.endpoint, work)
                admin.peer_environment.update(AWS_ACCESS_KEY_ID=servers.ADMIN_KEY,
                                              AWS_SECRET_ACCESS_KEY=servers.ADMIN_SECRET)
                admin.s5cmd("mb", f"s3://{BUCKET}")
                client = Client(tool, weed.endpoint, work)
                client.login(local.token("alice")["token"], WEED_ROLE, BUCKET)
                report.append((f"SeaweedFS ({version(['weed', 'version'])})",
                               transfers(client, sources, options, work), cold_lists(client, options, work)))
            client = Client(tool, local.endpoint, work)
            client.login(grant["token"], grant["roleArn"], grant["bucket"])
            report.append(("swift-wif local stack (wif-tool local serve)",
                           transfers(client, sources, options, work), cold_lists(client, options, work)))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    foreign = load.share()
    print("== files: wif-tool against s5cmd and aws, same server, same role and token, same user folder ==")
    print(f"wif-tool {tool}; s5cmd {version([S5CMD, 'version'])}; {version([AWS, '--version'])}")
    print(f"client and server share one machine of {os.cpu_count()} cores; other processes used "
          f"{foreign:.0%} of its CPU time during the run")
    if foreign > 0.1:
        print("note: other work ran during this run, so its timings are noisy; compare ratios only, and rerun on a quiet machine")
    for name, results, lists in report:
        print_server(name, results, lists, options)


if __name__ == "__main__":
    main()

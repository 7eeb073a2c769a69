"""One workspace's worst-case simulates against another workspace's login and tenant API (issue 28).

    python bench/bench_fairness.py [--reads 300] [--logins 5] [--attacks 4] [--repeat 1]
        [--cold] [--before DIR]

Serves each set-up with `insureops serve` in its own process, makes an attacker and a victim
workspace through the real routes, and times the victim's logins and tenant API reads idle and
while the attacker's worst-case simulates run; prints them beside the attacker's answers. The
set-up and the measurement are described below. `--before DIR` adds the same scenario served from
DIR/insureops (`git archive COMMIT | tar -x -C DIR/insureops`), interleaved with this checkout.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import aiohttp
from cryptography.fernet import Fernet

PASSWORD = "correct horse battery staple"
CLIENTS = "/api/v2/mcp/clients/"
SIMULATE = "/api/rules/rules/simulate/"
SCAN = '''ruleset attack.scan "Every item looked up in the whole list"
input c: Any
default decision accept

rule seen "Seen again"
when count(x in c.items where x in c.items) > 0
then
    refer "seen"
end
'''
# cases each just under the engine's work budget: a simulate that runs for minutes
HOSTILE_CASES = [{"id": f"c{n}", "inputs": {"c": {"items": list(range(999))}}}
                 for n in range(200)]
CODE = re.compile(r"To: (\S+)\nSubject: Your insureops verification code: (\d{6})")
TIMEOUT = aiohttp.ClientTimeout(total=120)

# Each server: log level WARNING, a fresh SQLite platform database in a temporary directory,
# embedded tenant databases, every other setting its default. Sign-up, the verification code read
# from the outbox as the server prints it, verify, login (production argon2id parameters: the
# default). The victim creates an API key (settings area) and one client (MCP v2 tenant API); the
# attacker runs one cheap simulate, which starts the rules workers as on a service already in use
# (`--cold` leaves it out: the attack then starts them). Idle, then while the attacker's
# `--attacks` concurrent simulates run (POST /api/rules/rules/simulate/, one case whose rule scans
# a 40,000-item list inside a comprehension over the same list: minutes of work, as in
# tests/platform/security/test_fairness.py), it times `--logins` victim logins (each a new
# session; median), each followed by its share of `--reads` sequential GETs of the victim's
# client through the MCP v2 API (p50, p99), from the client's side. Measuring under attack starts
# `--settle` seconds after the simulates are sent and stops `--window` seconds after they were
# (before the simulation budget, 20 s, can end them); the attacker's answers are awaited until
# `--attack-wait` seconds after, then the server's process group is stopped (SIGTERM, then
# SIGKILL: before the fix, threads still scanning keep the process alive). The "before" server
# finds DIR first on its PYTHONPATH. Prints the load average and the machine's steal time.


# The server ---------------------------------------------------------------------------------

@dataclass
class Server:
    """`insureops serve` on `port`, its output (the outbox's e-mails among it) in `log`."""

    process: subprocess.Popen
    base: str
    log: Path

    @classmethod
    def start(cls, port: int, directory: Path, source: str | None) -> Server:
        environment = {k: v for k, v in os.environ.items() if not k.startswith("INSUREOPS_")}
        environment.update({
            "INSUREOPS_DATABASE_URL": f"sqlite+aiosqlite:///{directory}/platform.sqlite3",
            "INSUREOPS_EMBEDDED_TENANT_DATABASES": "true",
            "INSUREOPS_SECRET_KEY": "bench-secret-" + "x" * 40,
            "INSUREOPS_FERNET_KEYS": Fernet.generate_key().decode(),
            "INSUREOPS_LOAD_EXAMPLE_MARKET": "false", "INSUREOPS_LOG_LEVEL": "WARNING",
            "PYTHONUNBUFFERED": "1"})
        if source:  # an earlier tree of the package, found before the installed one
            environment["PYTHONPATH"] = source
        log = directory / "server.log"
        with log.open("wb") as handle:  # its own session: the stop reaches the rules workers
            process = subprocess.Popen(
                [str(Path(sys.executable).with_name("insureops")), "serve", "--port", str(port)],
                env=environment, stdout=handle, stderr=subprocess.STDOUT, cwd=directory,
                start_new_session=True)
        return cls(process, f"http://127.0.0.1:{port}", log)

    async def ready(self, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=2)) as session:
            while time.monotonic() < deadline:
                if self.process.poll() is not None:
                    raise SystemExit(f"the server exited:\n{self.log.read_text()[-2000:]}")
                try:
                    async with session.get(self.base + "/api/health/") as answer:
                        if answer.status == 200:
                            return
                except (aiohttp.ClientError, TimeoutError):
                    pass
                await asyncio.sleep(0.1)
        raise SystemExit(f"the server did not start:\n{self.log.read_text()[-2000:]}")

    async def code_for(self, email: str, timeout: float = 20.0) -> str:
        """The verification code e-mailed to `email`, as the outbox printed it."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            codes = {to: code for to, code in CODE.findall(self.log.read_text(errors="replace"))}
            if email in codes:
                return codes[email]
            await asyncio.sleep(0.05)
        raise SystemExit(f"no verification code for {email}:\n{self.log.read_text()[-2000:]}")

    def stop(self) -> None:
        """SIGTERM to the process group; SIGKILL if it is not gone in 5 s (before the fix,
        threads still scanning keep the process alive)."""
        for sent, wait in ((signal.SIGTERM, 5), (signal.SIGKILL, 10)):
            try:
                os.killpg(self.process.pid, sent)
            except ProcessLookupError:
                break
            try:
                self.process.wait(wait)
            except subprocess.TimeoutExpired:
                continue
            if sent == signal.SIGTERM:  # the leader is gone: make sure its workers are
                try:
                    os.killpg(self.process.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            break


async def _post(session: aiohttp.ClientSession, url: str, expected: int, **options) -> dict:
    async with session.post(url, **options) as answer:
        body = await answer.json(content_type=None)
        if answer.status != expected:
            raise SystemExit(f"POST {url}: {answer.status} {body}")
        return body


async def sign_up(server: Server, email: str, name: str) -> aiohttp.ClientSession:
    """A verified user owning a new workspace, through the routes: a logged-in session."""
    session = aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True), timeout=TIMEOUT)
    auth = server.base + "/api/auth"
    await _post(session, auth + "/signup/", 202,
                json={"email": email, "password": PASSWORD, "name": name})
    code = await server.code_for(email)
    await _post(session, auth + "/verify/", 200, json={"email": email, "code": code})
    await _post(session, auth + "/login/", 200, json={"email": email, "password": PASSWORD})
    return session


async def victim_api(server: Server, session: aiohttp.ClientSession) -> tuple[str, str]:
    """An API key of the victim's workspace and the path of one client in its tenant database."""
    created = await _post(session, server.base + "/api/v2/settings/api-keys/", 201,
                          json={"name": "bench"})
    key = created["key"]
    client = await _post(session, server.base + CLIENTS, 201, json={"name": "Ann"},
                         headers={"Authorization": f"Bearer {key}"})
    return key, f"{server.base}{CLIENTS}{client['uuid']}/"


# Measurements -------------------------------------------------------------------------------

@dataclass
class Figures:
    """Client-side seconds of each timed login and read."""

    logins: list[float] = field(default_factory=list)
    reads: list[float] = field(default_factory=list)

    def p(self, share: float) -> float:
        reads = sorted(self.reads)
        return reads[min(len(reads) - 1, int(share * len(reads)))] if reads else float("nan")


async def measure(server: Server, email: str, key: str, path: str, args: argparse.Namespace,
                  until: float) -> Figures:
    """`args.logins` victim logins (each a new session), each followed by its share of
    `args.reads` sequential GETs of the client (so both are sampled across the window); stops
    at `until` (monotonic)."""
    figures = Figures()
    credentials = {"email": email, "password": PASSWORD}
    headers = {"Authorization": f"Bearer {key}"}
    rounds = max(1, args.logins)
    async with aiohttp.ClientSession(cookie_jar=aiohttp.DummyCookieJar(),
                                     timeout=TIMEOUT) as session:
        for number in range(rounds):
            if number < args.logins and time.monotonic() < until:
                started = time.perf_counter()
                await _post(session, server.base + "/api/auth/login/", 200, json=credentials)
                figures.logins.append(time.perf_counter() - started)
            share = args.reads * (number + 1) // rounds - args.reads * number // rounds
            for _ in range(share):
                if time.monotonic() > until:
                    return figures
                started = time.perf_counter()
                async with session.get(path, headers=headers) as answer:
                    await answer.read()
                    if answer.status != 200:
                        raise SystemExit(f"GET {path}: {answer.status}")
                figures.reads.append(time.perf_counter() - started)
    return figures


async def simulate(session: aiohttp.ClientSession, url: str, started: float) -> str:
    """One worst-case simulate: its status, error code and seconds from the attack's start."""
    async with session.post(url, json={"source": SCAN, "cases": HOSTILE_CASES}) as answer:
        body = await answer.json(content_type=None)
    code = body.get("error", {}).get("code", "") if isinstance(body, dict) else ""
    return f"{answer.status} {code}".strip() + f" @{time.monotonic() - started:.1f}s"


async def attacker_answers(tasks: list[asyncio.Task], started: float,
                           wait: float) -> list[str]:
    """Each simulate's answer, or none when `wait` seconds after `started` have passed (the
    bench then stops waiting; the server is stopped next)."""
    done, pending = await asyncio.wait(
        tasks, timeout=max(0.0, started + wait - time.monotonic()))
    for task in pending:
        task.cancel()
    answers = [task.result() for task in tasks if task in done]
    return answers + [f"no answer after {wait:g} s"] * len(pending)


async def warm_up(server: Server, attacker: aiohttp.ClientSession) -> float:
    """One cheap simulate by the attacker: a running service has started its rules workers
    (the first job starts them). Its seconds."""
    started = time.perf_counter()
    case = {"id": "warm", "inputs": {"c": {"items": [1, 2, 3]}}}
    await _post(attacker, server.base + SIMULATE, 200, json={"source": SCAN, "cases": [case]})
    return time.perf_counter() - started


def cpu_ticks() -> tuple[int, int]:
    """(steal, total) jiffies of the whole machine so far (/proc/stat)."""
    values = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return values[7], sum(values[:8])


@dataclass
class Run:
    setup_seconds: float
    first_job: float  # seconds of the warm-up simulate (nan with --cold)
    idle: Figures
    attacked: Figures
    answers: list[str]
    load: float
    steal: float = 0.0


async def scenario(server: Server, args: argparse.Namespace) -> Run:
    started = time.monotonic()
    await server.ready()
    victim = await sign_up(server, "victor@example.com", "Victim")
    attacker = await sign_up(server, "mallory@example.com", "Attacker")
    try:
        key, path = await victim_api(server, victim)
        first_job = float("nan") if args.cold else await warm_up(server, attacker)
        setup_seconds = time.monotonic() - started
        await measure(server, "victor@example.com", key, path,  # warm-up, untimed
                      argparse.Namespace(logins=1, reads=20), float("inf"))
        idle = await measure(server, "victor@example.com", key, path, args, float("inf"))
        attack_started = time.monotonic()
        tasks = [asyncio.create_task(simulate(attacker, server.base + SIMULATE, attack_started))
                 for _ in range(args.attacks)]
        await asyncio.sleep(args.settle)  # the workers start on first use; let them scan
        attacked = await measure(server, "victor@example.com", key, path, args,
                                 attack_started + args.window)
        unanswered = sum(not task.done() for task in tasks)
        answers = await attacker_answers(tasks, attack_started, args.attack_wait)
        answers.append(f"{unanswered} still running when the measurement ended")
        return Run(setup_seconds, first_job, idle, attacked, answers, os.getloadavg()[0])
    finally:
        await victim.close()
        await attacker.close()


async def run_setup(setup: str, args: argparse.Namespace, port: int, directory: Path) -> Run:
    directory.mkdir(parents=True)
    steal_before, total_before = cpu_ticks()
    server = Server.start(port, directory, args.before if setup == "before" else None)
    try:
        run = await scenario(server, args)
    finally:
        server.stop()
    steal, total = cpu_ticks()
    run.steal = 100 * (steal - steal_before) / max(1, total - total_before)
    return run


# Report -------------------------------------------------------------------------------------

LABELS = {"before": "before", "after": "after (this checkout)"}


def _answers(runs: list[Run]) -> str:
    """The attacker's answers, counted by status and code, with their time range."""
    counted: Counter[str] = Counter()
    times: dict[str, list[float]] = {}
    notes = []
    for run in runs:
        *answers, note = run.answers
        notes.append(note.split()[0])
        for answer in answers:
            kind, _, at = answer.partition(" @")
            counted[kind] += 1
            if at:
                times.setdefault(kind, []).append(float(at.rstrip("s")))
    parts = []
    for kind, count in counted.items():
        span = times.get(kind)
        when = f" at {min(span):.1f}-{max(span):.1f} s" if span else ""
        parts.append(f"{count / len(runs):g} x {kind}{when}")
    return "; ".join(parts) + f" (still running at the end: {'/'.join(notes)})"


def report(runs: dict[str, list[Run]], args: argparse.Namespace) -> None:
    def median(values):
        return statistics.median(values) if values else float("nan")

    print(f"\n{args.attacks} worst-case simulates from one workspace; victim: median of "
          f"{args.logins} logins, {args.reads} sequential MCP v2 GETs (client side); medians of "
          f"{args.repeat} interleaved runs")
    print("| set-up | set-up s | login idle s | login under attack s | API p50 / p99 idle ms | "
          "API p50 / p99 under attack ms | reads under attack | attacker's answers |")
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    for setup, found in runs.items():
        def m(pick):
            return median([pick(run) for run in found])
        print(f"| {LABELS[setup]} | {m(lambda r: r.setup_seconds):.1f} | "
              f"{m(lambda r: median(r.idle.logins)):.3f} | "
              f"{m(lambda r: median(r.attacked.logins)):.3f} "
              f"({m(lambda r: len(r.attacked.logins)):g} of {args.logins}) | "
              f"{m(lambda r: r.idle.p(0.5)) * 1e3:.1f} / {m(lambda r: r.idle.p(0.99)) * 1e3:.1f} | "
              f"{m(lambda r: r.attacked.p(0.5)) * 1e3:.1f} / "
              f"{m(lambda r: r.attacked.p(0.99)) * 1e3:.1f} | "
              f"{m(lambda r: len(r.attacked.reads)):g} of {args.reads} | {_answers(found)} |")
    for setup, found in runs.items():
        for number, run in enumerate(found, 1):
            print(f"  {setup} run {number}: load average {run.load:.2f} at its end, steal "
                  f"{run.steal:.0f} % of the machine's CPU time; warm-up simulate "
                  f"{run.first_job:.2f} s; logins under attack "
                  + ", ".join(f"{s:.3f}" for s in run.attacked.logins)
                  + f"; answers: {', '.join(run.answers)}")


async def main(args: argparse.Namespace) -> None:
    setups = ["before", "after"] if args.before else ["after"]
    runs: dict[str, list[Run]] = {}
    print(f"load average at the start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory(prefix="insureops-fairness-") as directory:
        for repeat in range(args.repeat):  # interleaved: every set-up sees the same noise
            for offset, setup in enumerate(setups):
                port = args.port + offset + 10 * repeat
                found = await run_setup(setup, args, port, Path(directory) / f"{setup}-{repeat}")
                runs.setdefault(setup, []).append(found)
    report(runs, args)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reads", type=int, default=300, help="sequential GETs timed")
    parser.add_argument("--logins", type=int, default=5, help="victim logins timed")
    parser.add_argument("--attacks", type=int, default=4, help="concurrent hostile simulates")
    parser.add_argument("--settle", type=float, default=1.5,
                        help="seconds between sending the simulates and measuring")
    parser.add_argument("--window", type=float, default=17.0,
                        help="seconds after the attack began when measuring stops")
    parser.add_argument("--attack-wait", type=float, default=35.0,
                        help="seconds after the attack began to wait for its answers")
    parser.add_argument("--cold", action="store_true",
                        help="no warm-up simulate: the attack starts the rules workers")
    parser.add_argument("--repeat", type=int, default=1, help="interleaved runs (medians)")
    parser.add_argument("--before", help="a directory holding an earlier insureops/ tree")
    parser.add_argument("--port", type=int, default=18531)
    asyncio.run(main(parser.parse_args()))

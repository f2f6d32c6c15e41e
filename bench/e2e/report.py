#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""report.py - manifest, tables, plot and integrity gates for bench/e2e/run.sh

  report.py manifest DIR --host-ns NS [settings]   (run.sh, after set-up)
  report.py report DIR                             (run.sh, at the end; or
                                                    again by hand to redo)

`manifest` records the machine, the software and the settings while the
namespaces exist (it reads sysctls and interface details inside them).
`report` reads what run.sh left in DIR (trials.jsonl, iperf/*.json,
verify.jsonl, ifstats-final.jsonl, slipway/*.json, gw-exit.txt), writes
raw.json, table.md, manifest.json (completed) and throughput.png (or .svg
without matplotlib), prints the table and the gates, and exits 1 if any
gate failed. Standard library only, matplotlib when present.
"""

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CLK_TCK = os.sysconf("SC_CLK_TCK")
DIRS = {"up": "guest→host", "down": "host→guest"}
LABEL = {
    "veth": "veth (kernel)",
    "loopback": "loopback (kernel)",
    "slipway": "slipway tap",
    "pasta": "pasta tap",
    "pasta-splice": "pasta splice",
    "slirp4netns": "slirp4netns",
}
GATEWAYS = ("slipway", "pasta", "pasta-splice", "slirp4netns")
# slipway counters that must be zero in a clean run (tests/integ/lib.sh
# check_gates, plus every counter of malformed input)
SW_ZERO = (
    "EDGE_TX_ERRORS", "EDGE_RX_ERRORS", "VNET_DROP_BAD_HDR", "ETH_DROP_SHORT",
    "IP4_DROP_BAD_HDR", "IP4_DROP_BAD_LEN", "TCP_DROP_BAD_HDR", "ARP_DROP_BAD",
    "ICMP4_DROP_BAD", "UDP_DROP_BAD_HDR", "DHCP4_DROP_BAD", "DNS_DROP_BAD",
    "FX_POOL_EMPTY", "TCP_PEEK_ERRORS",
)
IF_FIELDS = ("rx_dropped", "tx_dropped", "rx_errors", "tx_errors", "rx_packets", "tx_packets")
SYSCTLS = (
    "net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem", "net.core.rmem_max", "net.core.wmem_max",
    "net.core.rmem_default", "net.core.wmem_default", "net.ipv4.tcp_mem",
    "net.ipv4.tcp_congestion_control", "net.core.default_qdisc",
    "net.core.netdev_max_backlog", "net.ipv4.tcp_notsent_lowat",
)


def sh(cmd, ns=None):
    """Output of a read-only command (stripped), or an error string."""
    if ns:
        cmd = ["ip", "netns", "exec", ns] + cmd
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=20, cwd=ROOT)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"<{e}>"
    out = "\n".join(l for l in (r.stdout + r.stderr).splitlines()
                    if "to syslog" not in l)
    return out.strip()


def read(path, default=None):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return default


def jsonl(path):
    txt = read(path, "")
    return [json.loads(l) for l in txt.splitlines() if l.strip()]


def sysctls(ns=None):
    res = {}
    for k in SYSCTLS:
        p = "/proc/sys/" + k.replace(".", "/")
        res[k] = " ".join(sh(["cat", p], ns).split()) if ns else " ".join((read(p, "?") or "?").split())
    return res


def sha256(path):
    import hashlib
    try:
        with open(path, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()
    except OSError:
        return None


def mtime(path):
    try:
        return datetime.datetime.fromtimestamp(os.path.getmtime(path), datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S")
    except OSError:
        return None


def newer_than_src(binary):
    """Whether the binary is newer than every file under src/ (else it may
    not be what the commit and the work tree say)."""
    try:
        t = os.path.getmtime(binary)
    except OSError:
        return None
    newest = 0
    for dp, _, fs in os.walk(os.path.join(ROOT, "src")):
        for f in fs:
            newest = max(newest, os.path.getmtime(os.path.join(dp, f)))
    return t >= newest


def busy_cpus(seconds=1.0):
    """Busy CPUs (0..nproc) over an idle second: background load."""
    def ticks():
        f = list(map(int, read("/proc/stat").splitlines()[0].split()[1:9]))
        return f[0] + f[1] + f[2] + f[5] + f[6] + f[7], sum(f)
    b0, a0 = ticks()
    time.sleep(seconds)
    b1, a1 = ticks()
    return round((b1 - b0) / CLK_TCK / seconds, 3)


def cmd_manifest(a):
    d = a.dir
    cpu = next((l.split(":", 1)[1].strip() for l in read("/proc/cpuinfo").splitlines()
                if l.startswith("model name")), "?")
    paths = {}
    for line in read(os.path.join(d, "paths.tsv"), "").splitlines():
        p, ns, addr, port, vlisten, vport, gw, ifs = line.split("\t")
        info = {"guest_ns": ns, "server_addr_from_guest": addr, "iperf3_port": int(port),
                "verify_listen": f"{vlisten}:{vport}", "gateway_pid": int(gw) if gw else None,
                "interfaces": {}}
        if gw:
            info["gateway_cmdline"] = (read(f"/proc/{gw}/cmdline", "") or "").replace("\0", " ").strip()
            info["gateway_threads"] = len(os.listdir(f"/proc/{gw}/task")) if os.path.isdir(f"/proc/{gw}/task") else None
        for e in ifs.split():
            ins, ifn = e.split(":", 1)
            info["interfaces"][e] = {
                "link": sh(["ip", "-n", ins, "-d", "link", "show", "dev", ifn]),
                "addr": sh(["ip", "-n", ins, "-4", "-br", "addr", "show", "dev", ifn]),
                "qdisc": sh(["tc", "-n", ins, "qdisc", "show", "dev", ifn]),
            }
        info["guest_routes"] = sh(["ip", "-n", ns, "-4", "route"])
        paths[p] = info
    dpkg = {}
    for pkg in ("passt", "slirp4netns", "libslirp0", "iperf3", "linux-image-amd64", "python3-matplotlib"):
        v = sh(["dpkg-query", "-W", "-f", "${Version}", pkg])
        dpkg[pkg] = v if v and "no packages" not in v else None
    try:
        import matplotlib
        mpl = matplotlib.__version__
    except ImportError:
        mpl = None
    skipped = [l.split("\t", 1) for l in read(os.path.join(d, "skipped.tsv"), "").splitlines() if l]
    gov = read("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor")
    man = {
        "date_utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S"),
        "argv": read(os.path.join(d, "argv.txt"), "").strip(),
        "settings": {"seconds": a.secs, "trials": a.trials, "streams": [int(x) for x in a.streams.split()],
                     "paths_requested": a.paths.split(), "verify_bytes": a.verify_bytes,
                     "order": "for trial: for streams: for direction (up, down): for path (in --paths order)"},
        "commit": sh(["git", "rev-parse", "HEAD"]),
        "commit_short": sh(["git", "rev-parse", "--short", "HEAD"]),
        "worktree_changes": sh(["git", "--no-optional-locks", "status", "--porcelain"]).splitlines(),
        "binary_newer_than_src": newer_than_src(a.slipway),
        "kernel": platform.release(),
        "kernel_version": platform.version(),
        "cpu_model": cpu,
        "cpus": os.cpu_count(),
        "cpufreq_governor": gov.strip() if gov else None,
        "mem_total": next((l.split(":")[1].strip() for l in read("/proc/meminfo").splitlines()
                           if l.startswith("MemTotal")), "?"),
        "os": sh(["sh", "-c", ". /etc/os-release; echo $PRETTY_NAME"]),
        "loadavg_at_start": read("/proc/loadavg", "").strip(),
        "background_busy_cpus_1s": busy_cpus(),
        "clk_tck": CLK_TCK,
        "sysctls_root_ns": sysctls(),
        "sysctls_host_ns": sysctls(a.host_ns),
        "binaries": {b: {"path": b, "sha256": sha256(b), "mtime_utc": mtime(b)}
                     for b in (a.slipway, a.swverify)},
        "versions": {
            "slipway": sh([a.slipway, "--version"]),
            "pasta": sh(["pasta", "--version"]).splitlines()[0] if sh(["pasta", "--version"]) else None,
            "slirp4netns": sh(["slirp4netns", "--version"]),
            "iperf3": sh(["iperf3", "--version"]).splitlines()[0],
            "python": platform.python_version(),
            "matplotlib": mpl,
            "dpkg": dpkg,
        },
        "host_ns": a.host_ns,
        "paths": paths,
        "skipped": [{"path": s[0], "reason": s[1] if len(s) > 1 else ""} for s in skipped],
    }
    with open(os.path.join(d, "manifest.json"), "w") as f:
        json.dump(man, f, indent=1, ensure_ascii=False)
    return 0


def parse_size(s):
    s = str(s).strip()
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
    if s and s[-1].upper() in units:
        return int(float(s[:-1]) * units[s[-1].upper()])
    return int(s)


def med(x):
    return statistics.median(x) if x else None


def fmt(v, nd=1):
    return "–" if v is None else f"{v:.{nd}f}"


def inflight_bound(man, streams):
    """Bytes a TCP path can hold between iperf3's send count and its
    receive count at the end of a test: per stream, the sender's send
    buffer and the receiver's receive buffer on each of the (at most two)
    TCP connections, plus 4 MiB for the gateway's own buffers."""
    best = 0
    for key in ("sysctls_root_ns", "sysctls_host_ns"):
        s = man.get(key, {})
        try:
            r = max(int(s["net.ipv4.tcp_rmem"].split()[2]), int(s["net.core.rmem_max"]))
            w = max(int(s["net.ipv4.tcp_wmem"].split()[2]), int(s["net.core.wmem_max"]))
        except (KeyError, ValueError, IndexError):
            r = w = 64 << 20
        best = max(best, r + w)
    return streams * (2 * best + (4 << 20))


def load_trial(d, t):
    res = dict(t)
    j = None
    try:
        with open(os.path.join(d, t["iperf_json"])) as f:
            j = json.load(f)
    except (OSError, ValueError) as e:
        res["error"] = f"no iperf3 JSON: {e}"
    if j is not None and j.get("error"):
        res["error"] = j["error"]
    if j is not None and "end" in j and "sum_received" in j["end"]:
        e = j["end"]
        res["gbps"] = e["sum_received"]["bits_per_second"] / 1e9
        res["bytes_sent"] = int(e["sum_sent"]["bytes"])
        res["bytes_received"] = int(e["sum_received"]["bytes"])
        res["seconds"] = e["sum_received"]["seconds"]
        res["sender_retransmits"] = e["sum_sent"].get("retransmits")
        res["iperf_cpu"] = e.get("cpu_utilization_percent")
        res["streams_bytes"] = [[s["sender"]["bytes"], s["receiver"]["bytes"]] for s in e.get("streams", [])]
    elif "error" not in res:
        res["error"] = "iperf3 JSON has no end.sum_received"
    if t["rc"] != 0 and "error" not in res:
        res["error"] = f"iperf3 exit status {t['rc']}"
    gb = res.get("bytes_received", 0) / 1e9
    res["sys_cpu_s"] = t["sys_busy_ticks"] / CLK_TCK
    res["gw_cpu_s"] = t["gw_ticks"] / CLK_TCK if t.get("gw_ticks") is not None else None
    res["wall_s"] = t["t1"] - t["t0"]
    res["sys_s_per_gb"] = res["sys_cpu_s"] / gb if gb else None
    res["gw_s_per_gb"] = res["gw_cpu_s"] / gb if gb and res["gw_cpu_s"] is not None else None
    return res


def cmd_report(a):
    d = a.dir
    man = json.load(open(os.path.join(d, "manifest.json")))
    st = man["settings"]
    meta = dict(l.split(None, 1) for l in read(os.path.join(d, "run.meta"), "").splitlines() if l.strip())
    if "end_epoch" in meta:
        man["duration_s"] = round(float(meta["end_epoch"]) - float(meta["start_epoch"]), 1)
    man["commands"] = read(os.path.join(d, "commands.txt"), "").splitlines()
    # measured when the run ends; a later `report` keeps them
    if "loadavg_at_end" not in man:
        man["loadavg_at_end"] = read("/proc/loadavg", "").strip()
        man["background_busy_cpus_1s_at_end"] = busy_cpus()
    paths = [l for l in read(os.path.join(d, "paths.txt"), "").split() if l]
    skipped = man.get("skipped", [])
    trials = [load_trial(d, t) for t in jsonl(os.path.join(d, "trials.jsonl"))]
    verify = jsonl(os.path.join(d, "verify.jsonl"))
    for v in verify:
        out = [json.loads(l) for l in read(os.path.join(d, v["client_out"]), "").splitlines()
               if l.strip().startswith("{")]
        v["client_report"] = out
        v["server_report"] = [json.loads(l) for l in read(os.path.join(d, v["server_out"]), "").splitlines()
                              if l.strip().startswith("{")]
        if v.get("gw_ticks") is not None:
            v["gw_cpu_s"] = v["gw_ticks"] / CLK_TCK
    iffinal = {r["path"]: r["if"] for r in jsonl(os.path.join(d, "ifstats-final.jsonl"))}
    gwexit = dict(l.split() for l in read(os.path.join(d, "gw-exit.txt"), "").splitlines() if l.strip())
    sw_stats = None
    txt = read(os.path.join(d, "slipway", "stats.json"))
    if txt:
        try:
            sw_stats = json.loads(txt)
        except ValueError:
            sw_stats = {"unparsable": txt[:200]}

    # slipway counters per trial: difference of consecutive SIGUSR1 snapshots
    prev = None
    for t in trials:
        if t["path"] != "slipway" or not t.get("slipway_snapshot"):
            continue
        try:
            cur = json.load(open(os.path.join(d, t["slipway_snapshot"])))["counters"]
        except (OSError, ValueError, KeyError):
            continue
        if prev is not None:
            t["slipway_delta"] = {k: v - prev.get(k, 0) for k, v in cur.items()
                                  if v - prev.get(k, 0) and k != "TCP_FLOWS_ACTIVE"}
        prev = cur

    measured = [t for t in trials if t["kind"] == "trial"]
    groups = {}
    for t in measured:
        groups.setdefault((t["streams"], t["dir"], t["path"]), []).append(t)
    rows = []
    for n in st["streams"]:
        for dr in ("up", "down"):
            for p in paths:
                ts = groups.get((n, dr, p), [])
                ok = [t for t in ts if "error" not in t]
                g = [t["gbps"] for t in ok]
                rows.append({
                    "streams": n, "dir": dr, "path": p, "trials": len(ts), "ok": len(ok),
                    "gbps": g, "median": med(g), "min": min(g) if g else None, "max": max(g) if g else None,
                    "gw_s_per_gb": med([t["gw_s_per_gb"] for t in ok if t["gw_s_per_gb"] is not None]),
                    "sys_s_per_gb": med([t["sys_s_per_gb"] for t in ok if t["sys_s_per_gb"] is not None]),
                    "gw_cpus": med([t["gw_cpu_s"] / t["wall_s"] for t in ok if t["gw_cpu_s"] is not None]),
                    "retrans": med([t["sender_retransmits"] for t in ok if t.get("sender_retransmits") is not None]),
                })
    byk = {(r["streams"], r["dir"], r["path"]): r for r in rows}
    for r in rows:
        for ref in ("veth", "pasta"):
            b = byk.get((r["streams"], r["dir"], ref))
            r["vs_" + ref] = (r["median"] / b["median"]) if b and b["median"] and r["median"] is not None else None

    # ---- integrity gates ---------------------------------------------------
    gates = []

    def gate(name, ok, detail):
        gates.append({"gate": name, "ok": bool(ok), "detail": detail})

    bad = [f"#{t['seq']} {t['path']} P{t['streams']} {t['dir']}: {t['error']}" for t in measured if "error" in t]
    gate("every iperf3 trial completed", not bad, "; ".join(bad) or f"{len(measured)} trials")
    per = {n: inflight_bound(man, n) for n in st["streams"]}
    bad, exact = [], 0
    for t in measured:
        if "bytes_sent" not in t:
            continue
        diff = t["bytes_sent"] - t["bytes_received"]
        t["sent_minus_received"] = diff
        t["inflight_bound"] = per[t["streams"]]
        exact += diff == 0
        if diff < 0 or diff > per[t["streams"]]:
            bad.append(f"#{t['seq']} {t['path']} P{t['streams']} {t['dir']}: sent {t['bytes_sent']} received {t['bytes_received']}")
    gate("iperf3 bytes: received <= sent, and sent - received within the in-flight bound",
         not bad, "; ".join(bad) or f"{exact} of {len(measured)} trials exactly equal; the rest differ by "
         f"bytes still in flight when iperf3 stops counting (max "
         f"{max([t.get('sent_minus_received', 0) for t in measured] or [0]) / 2**20:.1f} MiB; bound "
         f"{per[min(per)] / min(per) / 2**20:.0f} MiB per stream). Exact counts: the swverify gate")
    bad = [f"#{t['seq']} {t['path']}" for t in trials if t.get("gw_alive") is False]
    gate("gateway processes alive through every trial", not bad, "; ".join(bad) or "yes")
    bad, seen = [], []
    for p in paths:
        snap = iffinal.get(p)
        if snap is None:
            last = [t for t in trials if t["path"] == p]
            snap = last[-1]["if_after"] if last else {}
        for ifn, v in snap.items():
            if v is None:
                bad.append(f"{p} {ifn}: counters unreadable")
                continue
            c = dict(zip(IF_FIELDS, v))
            seen.append(f"{p} {ifn.split(':')[1]} rx/tx {c['rx_packets']}/{c['tx_packets']} pkts")
            nz = {k: c[k] for k in IF_FIELDS[:4] if c[k]}
            if nz:
                bad.append(f"{p} {ifn}: {nz}")
    # where they happened: the trials whose before/after counters moved
    during = []
    for t in trials:
        for ifn, v in (t.get("if_after") or {}).items():
            b = (t.get("if_before") or {}).get(ifn)
            if v is None or b is None:
                continue
            nz = {k: v[i] - b[i] for i, k in enumerate(IF_FIELDS[:4]) if v[i] != b[i]}
            if nz:
                t["interface_errors"] = {ifn: nz}
                during.append(f"#{t['seq']} {t['kind']} {t['path']} P{t['streams']} {t['dir']}: "
                              + ", ".join(f"{k} +{n}" for k, n in nz.items()))
    if bad and during:
        bad.append("during trials: " + "; ".join(during))
    gate("zero drops and errors on the guest interfaces (rx/tx_dropped, rx/tx_errors, since creation)",
         not bad, "; ".join(bad) or "all zero (" + "; ".join(seen) + ")")
    if "slipway" in paths:
        why = []
        rc = gwexit.get("slipway")
        if rc != "0":
            why.append(f"exit status {rc}")
        if not sw_stats or "counters" not in sw_stats:
            why.append("no counters JSON at exit")
        else:
            c = sw_stats["counters"]
            why += [f"{k}={c.get(k)}" for k in SW_ZERO if c.get(k, 0) != 0]
            if c.get("TCP_ACKED_BYTES") != c.get("TCP_HOST_READ_BYTES"):
                why.append(f"TCP_ACKED_BYTES={c.get('TCP_ACKED_BYTES')} != TCP_HOST_READ_BYTES={c.get('TCP_HOST_READ_BYTES')}")
            if c.get("TCP_FLOWS_ACTIVE", 0) != 0:
                why.append(f"TCP_FLOWS_ACTIVE={c['TCP_FLOWS_ACTIVE']} at exit")
        det = "; ".join(why)
        if not why:
            c = sw_stats["counters"]
            det = (f"exit 0; acked = read = {c['TCP_ACKED_BYTES']} B; guest bytes {c['TCP_GUEST_BYTES']}; "
                   f"{len(SW_ZERO)} error/malformed counters 0; retrans {c.get('TCP_RETRANS_BYTES')} B; "
                   f"flows {c.get('TCP_FLOWS_OPENED_GUEST')} opened, {c.get('TCP_FLOWS_CLOSED')} closed, "
                   f"{c.get('TCP_FLOWS_RESET_BY_GUEST', 0) + c.get('TCP_FLOWS_RESET_BY_HOST', 0)} reset")
        gate("slipway counters at exit (edge errors, malformed frames, acked == read, no flow left)", not why, det)
    want = {(p, dr) for p in paths for dr in ("up", "down")}
    got = {(v["path"], v["dir"]): v for v in verify}
    bad = []
    for k in sorted(want):
        v = got.get(k)
        if v is None:
            bad.append(f"{k[0]} {k[1]}: not run")
        elif v["server_rc"] != 0 or v["client_rc"] != 0:
            bad.append(f"{k[0]} {k[1]}: server {v['server_rc']} client {v['client_rc']}")
    vb = st.get("verify_bytes")
    gate(f"payload verified by swverify, {vb} per path and direction (exact count and content)",
         not bad, "; ".join(bad) or f"{len(got)} legs verified")
    failed = [g for g in gates if not g["ok"]]

    # ---- outputs -------------------------------------------------------------
    raw = {"manifest": "manifest.json", "settings": st, "paths": paths, "skipped": skipped,
           "trials": trials, "verify": verify, "interfaces_final": iffinal,
           "gateway_exit": gwexit, "slipway_stats_at_exit": sw_stats, "summary": rows, "gates": gates}
    with open(os.path.join(d, "raw.json"), "w") as f:
        json.dump(raw, f, indent=1, ensure_ascii=False)
    man["gates_failed"] = [g["gate"] for g in failed]
    with open(os.path.join(d, "manifest.json"), "w") as f:
        json.dump(man, f, indent=1, ensure_ascii=False)
    plot = make_plot(d, rows, paths, st, man)
    md = table_md(man, rows, paths, gates, skipped, verify, plot)
    with open(os.path.join(d, "table.md"), "w") as f:
        f.write(md)
    print(md)
    print(f"results: {d}")
    if failed:
        print(f"GATES FAILED: {len(failed)}: " + "; ".join(g["gate"] for g in failed), file=sys.stderr)
        return 1
    return 0


def text_chart(rows, paths, st):
    """Bars in text, one block per stream count and direction."""
    top = max([r["max"] for r in rows if r["max"] is not None] or [1])
    width = 40
    out = []
    for n in st["streams"]:
        for dr in ("up", "down"):
            out.append(f"P{n} {DIRS[dr]}")
            for p in paths:
                r = next((r for r in rows if (r["streams"], r["dir"], r["path"]) == (n, dr, p)), None)
                if not r or r["median"] is None:
                    out.append(f"  {LABEL[p]:18} (no result)")
                    continue
                k = int(round(r["median"] / top * width))
                out.append(f"  {LABEL[p]:18} {'█' * k}{' ' * (width - k)} {r['median']:5.1f} ({r['min']:.1f}–{r['max']:.1f})")
            out.append("")
    return "\n".join(out).rstrip() + "\n"


def table_md(man, rows, paths, gates, skipped, verify, plot):
    st = man["settings"]
    L = []
    smoke = st["trials"] < 3
    L.append(f"# TCP throughput and CPU per GB, same window ({man['date_utc'][:10]})")
    L.append("")
    if smoke:
        L.append(f"**SMOKE RUN: {st['trials']} trial(s); results need at least 3.**")
        L.append("")
    L.append(f"`{man['argv']}`: iperf3 -t {st['seconds']}, P {' / '.join(map(str, st['streams']))}, "
             f"{st['trials']} interleaved trials per row (order: {st['order']}); "
             f"commit {man['commit_short']}, kernel {man['kernel']}, {man['cpus']} × {man['cpu_model']}; "
             f"run took {man.get('duration_s', '?')} s.")
    ch = [c for c in man.get("worktree_changes", []) if c[3:].startswith("src/")]
    nb = man.get("binary_newer_than_src")
    if ch or nb is not True:
        L.append(f"**Work tree at start: {len(ch)} uncommitted change(s) under src/; slipway binary "
                 f"{ {True: 'newer', False: 'NOT newer', None: 'not known to be newer'}[nb]} than src/ "
                 f"(see manifest.json).**")
    s = man["sysctls_host_ns"]
    L.append(f"tcp_rmem {s['net.ipv4.tcp_rmem']}, tcp_wmem {s['net.ipv4.tcp_wmem']}, "
             f"rmem_max {s['net.core.rmem_max']}, wmem_max {s['net.core.wmem_max']}; "
             f"{man['versions']['iperf3']}; passt {man['versions']['dpkg'].get('passt')}; "
             f"slirp4netns {man['versions']['dpkg'].get('slirp4netns')} (libslirp {man['versions']['dpkg'].get('libslirp0')}).")
    L.append("")
    L.append("| P | direction | path | median Gbit/s | min–max | vs veth | vs pasta | gateway CPU s/GB | gateway busy CPUs | system CPU s/GB |")
    L.append("|---|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        mm = f"{fmt(r['min'])}–{fmt(r['max'])}" if r["min"] is not None else "–"
        note = "" if r["ok"] == r["trials"] else f" ({r['ok']}/{r['trials']} ok)"
        L.append(f"| {r['streams']} | {DIRS[r['dir']]} | {LABEL[r['path']]}{note} | {fmt(r['median'])} | {mm} | "
                 f"{fmt(r['vs_veth'], 2)} | {fmt(r['vs_pasta'], 2)} | "
                 f"{fmt(r['gw_s_per_gb'], 3) if r['path'] in GATEWAYS else '–'} | "
                 f"{fmt(r['gw_cpus'], 2) if r['path'] in GATEWAYS else '–'} | {fmt(r['sys_s_per_gb'], 3)} |")
    L.append("")
    L.append("Gbit/s: iperf3's receiver-side rate (sum over streams). vs veth / vs pasta: ratio of medians "
             "in the same row group (pasta = pasta's tap path). Gateway CPU: utime+stime of the gateway "
             "process (all threads) over the trial, per GB (10^9 bytes) received; gateway busy CPUs: the same "
             "CPU time over the trial's wall time (1.00 = one core saturated); system CPU: busy time "
             "of all CPUs (/proc/stat, everything on the machine: iperf3 both ends, kernel, gateway) per GB. "
             "For loopback the \"guest\" is the client in H.")
    L.append("")
    L.append("```")
    L.append(text_chart(rows, paths, st).rstrip())
    L.append("```")
    if plot:
        L.append("")
        L.append(f"Plot: `{plot}` in the results directory.")
    L.append("")
    L.append("## Integrity gates")
    L.append("")
    for g in gates:
        L.append(f"- **{'PASS' if g['ok'] else 'FAIL'}** {g['gate']}: {g['detail']}")
    L.append("")
    if verify:
        L.append("Payload-verified legs (swverify, Gbit/s as the client saw it):")
        L.append("")
        for v in verify:
            g = [c.get("gbps") for c in v.get("client_report", []) if "gbps" in c]
            L.append(f"- {LABEL.get(v['path'], v['path'])} {DIRS[v['dir']]}: "
                     f"{'verified' if v['server_rc'] == 0 and v['client_rc'] == 0 else 'FAILED'}"
                     f"{', %.1f Gbit/s' % g[-1] if g else ''}")
        L.append("")
    L.append("## Skipped")
    L.append("")
    if skipped:
        for s in skipped:
            L.append(f"- {s['path']}: {s['reason']}")
    else:
        L.append("- nothing")
    L.append("")
    return "\n".join(L)


def make_plot(d, rows, paths, st, man):
    groups = [(n, dr) for n in st["streams"] for dr in ("up", "down")]
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return svg_plot(d, rows, paths, groups, man)
    fig, axes = plt.subplots(2, 1, figsize=(11, 7.5), sharex=True,
                             gridspec_kw={"height_ratios": [3, 2]})
    w = 0.8 / max(len(paths), 1)
    cmap = plt.get_cmap("tab10")
    for i, p in enumerate(paths):
        xs, ys, lo, hi, cs = [], [], [], [], []
        for gi, (n, dr) in enumerate(groups):
            r = next((r for r in rows if (r["streams"], r["dir"], r["path"]) == (n, dr, p)), None)
            if not r or r["median"] is None:
                continue
            xs.append(gi - 0.4 + w * (i + 0.5))
            ys.append(r["median"])
            lo.append(r["median"] - r["min"])
            hi.append(r["max"] - r["median"])
            cs.append(r["sys_s_per_gb"] or 0)
        axes[0].bar(xs, ys, w, yerr=[lo, hi], capsize=2, label=LABEL[p], color=cmap(i))
        axes[1].bar(xs, cs, w, color=cmap(i))
    axes[0].set_ylabel("Gbit/s (median, min–max)")
    axes[0].set_ylim(0, max([r["max"] for r in rows if r["max"] is not None] or [1]) * 1.22)
    axes[0].legend(ncol=len(paths), fontsize=8, loc="upper center")
    axes[0].grid(axis="y", alpha=0.3)
    axes[1].set_ylabel("system CPU s per GB")
    axes[1].grid(axis="y", alpha=0.3)
    axes[1].set_xticks(range(len(groups)))
    axes[1].set_xticklabels([f"P{n}\n{DIRS[dr]}" for n, dr in groups])
    fig.suptitle(f"iperf3 TCP, {st['trials']} interleaved trials × {st['seconds']} s; "
                 f"{man['commit_short']}, {man['kernel']}, {man['cpus']} CPUs, {man['date_utc'][:10]}", fontsize=10)
    fig.tight_layout()
    fig.savefig(os.path.join(d, "throughput.png"), dpi=110)
    plt.close(fig)
    return "throughput.png"


def svg_plot(d, rows, paths, groups, man):
    """Grouped bars with min–max whiskers, by hand (no matplotlib)."""
    colors = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b"]
    W, Hh, left, bottom, top = 900, 420, 60, 60, 30
    top_v = max([r["max"] for r in rows if r["max"] is not None] or [1]) * 1.1
    gw = (W - left - 20) / max(len(groups), 1)
    bw = gw * 0.8 / max(len(paths), 1)
    y = lambda v: Hh - bottom - v / top_v * (Hh - bottom - top)
    s = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{Hh + 20 * len(paths)}" font-family="sans-serif" font-size="11">']
    for k in range(6):
        v = top_v * k / 5
        s.append(f'<line x1="{left}" x2="{W - 20}" y1="{y(v):.1f}" y2="{y(v):.1f}" stroke="#ddd"/>'
                 f'<text x="{left - 5}" y="{y(v) + 4:.1f}" text-anchor="end">{v:.0f}</text>')
    for gi, (n, dr) in enumerate(groups):
        x0 = left + gi * gw + gw * 0.1
        s.append(f'<text x="{x0 + gw * 0.4:.1f}" y="{Hh - bottom + 15}" text-anchor="middle">P{n} {DIRS[dr]}</text>')
        for i, p in enumerate(paths):
            r = next((r for r in rows if (r["streams"], r["dir"], r["path"]) == (n, dr, p)), None)
            if not r or r["median"] is None:
                continue
            x = x0 + i * bw
            s.append(f'<rect x="{x:.1f}" y="{y(r["median"]):.1f}" width="{bw * 0.9:.1f}" '
                     f'height="{y(0) - y(r["median"]):.1f}" fill="{colors[i % 6]}"/>')
            cx = x + bw * 0.45
            s.append(f'<line x1="{cx:.1f}" x2="{cx:.1f}" y1="{y(r["min"]):.1f}" y2="{y(r["max"]):.1f}" stroke="#000"/>')
    for i, p in enumerate(paths):
        yy = Hh + 5 + 20 * i
        s.append(f'<rect x="{left}" y="{yy - 10}" width="12" height="12" fill="{colors[i % 6]}"/>'
                 f'<text x="{left + 18}" y="{yy}">{LABEL[p]}</text>')
    s.append(f'<text x="{left}" y="15">Gbit/s (median, min–max) — {man["commit_short"]}, {man["kernel"]}</text></svg>')
    with open(os.path.join(d, "throughput.svg"), "w") as f:
        f.write("\n".join(s))
    return "throughput.svg"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("manifest")
    m.add_argument("dir")
    m.add_argument("--host-ns", required=True)
    m.add_argument("--secs", type=int, required=True)
    m.add_argument("--trials", type=int, required=True)
    m.add_argument("--streams", required=True)
    m.add_argument("--paths", required=True)
    m.add_argument("--verify-bytes", required=True)
    m.add_argument("--slipway", required=True)
    m.add_argument("--swverify", required=True)
    r = sub.add_parser("report")
    r.add_argument("dir")
    a = ap.parse_args()
    a.dir = os.path.abspath(a.dir)
    sys.exit(cmd_manifest(a) if a.cmd == "manifest" else cmd_report(a))


if __name__ == "__main__":
    main()

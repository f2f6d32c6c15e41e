#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""report.py - manifest, tables, plots and integrity gates for bench/e2e/run.sh

  report.py manifest DIR --host-ns NS [settings]   (run.sh, after set-up)
  report.py report DIR                             (run.sh, at the end; or
                                                    again by hand to redo)

`manifest` records the machine, the software and the settings while the
namespaces exist (it reads sysctls and interface details inside them).
`report` reads what run.sh left in DIR (trials.jsonl, iperf/*.json,
verify.jsonl, lat.jsonl, conn.jsonl, mem.jsonl and the files they name,
ifstats-final.jsonl, slipway/*.json, gw-exit.txt), writes raw.json,
table.md, manifest.json (completed), throughput.png and legs.png (or .svg
without matplotlib: drawn by hand), prints the tables and the gates, and
exits 1 if any gate failed. Standard library only, matplotlib when present.
"""

import argparse
import datetime
import json
import os
import platform
import resource
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
    "slipway-splice": "slipway splice",
    "pasta": "pasta tap",
    "pasta-splice": "pasta splice",
    "slirp4netns": "slirp4netns",
    "slipway-stream": "slipway stream (bridge)",
    "slipway-dgram": "slipway dgram (bridge)",
    "passt-stream": "passt stream (bridge)",
    "slipway-vu": "slipway vhost-user (swvu)",
    "slipway-vu-copy": "slipway vhost-user, --no-place (swvu)",
    "slipway-vu-base": "slipway vhost-user, --baseline build (swvu)",
    "slipway-vu-log": "slipway vhost-user, dirty logging on (swvu --log)",
    "passt-vu": "passt vhost-user (swvu)",
    "veth-remote": "veth remote (kernel)",
    "slipway-remote": "slipway remote (tap)",
    "pasta-remote": "pasta remote (tap)",
}
GATEWAYS = ("slipway", "slipway-splice", "pasta", "pasta-splice", "slirp4netns",
            "slipway-stream", "slipway-dgram", "passt-stream", "slipway-vu", "slipway-vu-copy", "slipway-vu-base", "slipway-vu-log",
            "passt-vu", "slipway-remote", "pasta-remote")
SLIPWAYS = ("slipway", "slipway-splice", "slipway-stream", "slipway-dgram", "slipway-vu", "slipway-vu-copy",
            "slipway-vu-base", "slipway-vu-log", "slipway-remote")
# the remote topology: the client in its own namespace C behind a veth to H
REMOTE = ("veth-remote", "slipway-remote", "pasta-remote")
# ratio columns: medians against these paths, measured in the same run
# (veth-remote: the kernel's reference for the remote paths, same hops)
REFS = ("veth", "pasta", "pasta-splice", "passt-stream", "passt-vu", "veth-remote", "pasta-remote")
REF_LABEL = {"veth": "vs veth", "pasta": "vs pasta", "pasta-splice": "vs pasta splice",
             "passt-stream": "vs passt stream", "passt-vu": "vs passt vhost-user",
             "veth-remote": "vs veth remote", "pasta-remote": "vs pasta remote"}
# the target for the mem leg (10,000 idle flows)
MEM_TARGET_MIB = 32
COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
          "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"]


def label(p):
    """A path's name in tables: slipway+NAME is a --variant of the tap path."""
    if p.startswith("slipway+"):
        return f"slipway tap [{p[8:]}]"
    return LABEL.get(p, p)


def is_sw(p):
    """A slipway path (tap, splice, or a variant)."""
    return p in SLIPWAYS or p.startswith("slipway+")


def is_gw(p):
    """A path with a gateway process (CPU per GB is measured)."""
    return p in GATEWAYS or p.startswith("slipway+")


def color(p):
    """One colour per path, the same in every plot."""
    keys = list(LABEL)
    return COLORS[(keys.index(p) if p in keys else len(keys)) % len(COLORS)]
# slipway counters that must be zero in a clean run (tests/integ/lib.sh
# check_gates, plus every counter of malformed input)
SW_ZERO = (
    "EDGE_TX_ERRORS", "EDGE_RX_ERRORS", "EDGE_TX_DROPPED", "EDGE_BAD_FRAMING", "VNET_DROP_BAD_HDR", "ETH_DROP_SHORT",
    "IP4_DROP_BAD_HDR", "IP4_DROP_BAD_LEN", "TCP_DROP_BAD_HDR", "ARP_DROP_BAD",
    "ICMP4_DROP_BAD", "UDP_DROP_BAD_HDR", "DHCP4_DROP_BAD", "DNS_DROP_BAD",
    "FX_POOL_EMPTY", "TCP_PEEK_ERRORS", "SHARD_MBOX_FULL",
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


def legs_paths(d):
    """{leg: [paths]} from legs.tsv; a results directory from before the
    lat, conn and mem legs has throughput only."""
    res = {}
    for l in (read(os.path.join(d, "legs.tsv"), "") or "").splitlines():
        if l.strip():
            k, _, v = l.partition("\t")
            res[k] = v.split()
    if not res:
        res["tput"] = (read(os.path.join(d, "paths.txt"), "") or "").split()
    return res


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
    lossif = dict(l.split("\t", 1) for l in (read(os.path.join(d, "loss.tsv"), "") or "").splitlines() if l)
    for line in read(os.path.join(d, "paths.tsv"), "").splitlines():
        f = line.split("\t")
        p, ns, addr, port, vlisten, vport, gw, ifs, gns, sns, rev, caddr, rport, cport = f[:14]
        # the conn client's namespace: H, or C for the remote paths (older
        # runs wrote 14 columns: always H)
        cns = f[14] if len(f) > 14 else a.host_ns
        info = {"client_ns": ns, "guest_ns": gns, "server_ns": sns, "server_addr_from_client": addr,
                "client_on_host_side": rev == "1", "iperf3_port": int(port),
                "verify_listen": f"{vlisten}:{vport}", "swrr_port": int(rport),
                "conn_target_from_host": f"{caddr}:{cport}", "conn_client_ns": cns,
                "gateway_pid": int(gw) if gw else None, "interfaces": {}}
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
        info["guest_routes"] = sh(["ip", "-n", gns, "-4", "route"])
        if p in lossif:
            lns = lossif[p].split(":", 1)[0]
            info["loss_interface"] = lossif[p]
            info["loss_ruleset"] = sh(["nft", "list", "table", "netdev", "swloss"], lns)
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
                     "legs": a.legs.split(), "legs_paths": legs_paths(d),
                     "rr_count": a.rr_count, "rr_size": a.rr_size,
                     "conn_seconds": a.conn_seconds, "conn_parallel": a.conn_parallel,
                     "mem_flows": a.mem_flows, "mem_port": a.mem_port,
                     "mem_gateways_requested": a.mem_gateways.split(),
                     "slipway_tap_options": a.slipway_options.split(),
                     "slipway_has_no_splice": "--no-splice" in a.slipway_options.split(),
                     "slipway_mem_options": a.slipway_mem_options.split(),
                     "nofile_run_sh": list(resource.getrlimit(resource.RLIMIT_NOFILE)),
                     "loss_pct": float(a.loss) if a.loss else None,
                     "loss_per_mille": a.loss_per_mille or None,
                     "order": "for trial: tput (for streams: for direction (up, down): for path), "
                              "then lat (for path), conn (for path), mem (for gateway); paths in --paths order"},
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
                     for b in (a.slipway, a.swverify, a.swrr, a.swconn)},
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
    add_loss(res)
    return res


# the swloss counters run.sh reads: [rx_seen packets, bytes, rx_drop
# packets, bytes, tx_seen ..., tx_drop ...] (rx: what the guest receives)
LOSS_FIELDS = ("rx_seen_pkts", "rx_seen_bytes", "rx_drop_pkts", "rx_drop_bytes",
               "tx_seen_pkts", "tx_seen_bytes", "tx_drop_pkts", "tx_drop_bytes")
# IPv4 + TCP headers without options: per packet, out of the wire bytes
HDR = 40


def add_loss(res, rcv=None):
    """Under --loss, for a tput trial or a verify leg: the swloss counter
    deltas; the share of the packets lost each way (data: the direction the
    payload goes, acks: the other); the data bytes lost per GB received
    (IP bytes, the least a sender must resend); the mean size of a data
    packet; and, given rcv (the payload's exact size: a verify leg), the
    bytes resent per GB: what crossed the guest interface in the data
    direction (the lost included, less HDR bytes a packet) minus rcv."""
    b, a = res.get("loss_before"), res.get("loss_after")
    if not b or not a or len(b) != len(a):
        return
    dl = dict(zip(LOSS_FIELDS, (y - x for x, y in zip(b, a))))
    res["loss_delta"] = dl
    data, ack = ("tx", "rx") if res.get("dir") == "up" else ("rx", "tx")
    for k, w in (("data", data), ("acks", ack)):
        n = dl[w + "_seen_pkts"]
        res[f"loss_{k}_pct"] = 100 * dl[w + "_drop_pkts"] / n if n else None
    n = dl[data + "_seen_pkts"]
    res["data_pkt_bytes"] = dl[data + "_seen_bytes"] / n if n else None
    got = rcv or res.get("bytes_received")
    if not got:
        return
    res["lost_mb_per_gb"] = dl[data + "_drop_bytes"] / 1e6 / (got / 1e9)
    if res.get("sender_retransmits") is not None:
        res["retrans_segs_per_gb"] = res["sender_retransmits"] / (got / 1e9)
    wire = dl[data + "_seen_bytes"] - HDR * n
    res["wire_payload_bytes"] = wire
    if rcv:
        res["resent_mb_per_gb"] = (wire - rcv) / 1e6 / (rcv / 1e9)
    elif res.get("bytes_sent"):
        # a tput trial: the unique payload that crossed is at least what
        # the receiver counted and at most what the sender wrote
        res["resent_lo_mb_per_gb"] = max(0, wire - res["bytes_sent"]) / 1e6 / (got / 1e9)
        res["resent_hi_mb_per_gb"] = (wire - got) / 1e6 / (got / 1e9)


def load_json_lines(path):
    """The JSON objects on the lines of a tool's output (others ignored)."""
    res = []
    for l in (read(path, "") or "").splitlines():
        l = l.strip()
        if l.startswith("{"):
            try:
                res.append(json.loads(l))
            except ValueError:
                pass
    return res


def load_tool(d, r, leg, st):
    """A lat or conn record of run.sh with the tool's JSON line, and an
    "error" when the leg failed its integrity check."""
    res = dict(r)
    out = load_json_lines(os.path.join(d, r["out"]))
    j = out[-1] if out else None
    res["result"] = j
    res["wall_s"] = r["t1"] - r["t0"]
    res["gw_cpu_s"] = r["gw_ticks"] / CLK_TCK if r.get("gw_ticks") is not None else None
    if j is None:
        res["error"] = f"no JSON from the client (exit status {r['rc']})"
    elif j.get("error") or j.get("first_error"):
        res["error"] = j.get("error") or j.get("first_error")
    elif r["rc"] != 0:
        res["error"] = f"exit status {r['rc']}"
    elif leg == "lat" and r["kind"] == "trial" and j.get("count") != st.get("rr_count"):
        res["error"] = f"{j.get('count')} round trips, wanted {st.get('rr_count')}"
    elif leg == "conn" and (j.get("errors") or not j.get("connections")):
        res["error"] = f"{j.get('errors')} failed, {j.get('connections')} completed"
    if leg == "conn" and j and j.get("connections") and res.get("gw_cpu_s") is not None:
        res["gw_us_per_conn"] = res["gw_cpu_s"] / j["connections"] * 1e6
    return res


def load_mem(d, r):
    """A mem record with the hold client's JSON lines and the derived
    numbers; "error" when the leg failed its integrity check."""
    res = dict(r)
    res.pop("error", None)
    out = load_json_lines(os.path.join(d, r["hold_out"]))
    held = next((j for j in out if j.get("phase") == "held"), None)
    rel = next((j for j in out if j.get("phase") == "released"), None)
    res["hold_held"], res["hold_released"] = held, rel
    why = []
    if r.get("error"):
        why.append(r["error"])
    if held is None:
        why.append("the hold client did not report its connections")
    elif held.get("established") != r["flows"] or held.get("errors"):
        why.append(f"{held.get('established')} of {r['flows']} connections established, "
                   f"{held.get('errors')} failed" + (f": {held['first_error']}" if held.get("first_error") else ""))
    if rel is not None and (rel.get("dropped") or rel.get("errors")):
        why.append(f"{rel.get('dropped')} held connections dropped" +
                   (f": {rel['first_error']}" if rel.get("first_error") else ""))
    if r.get("hold_rc") not in (0, None) and not why:
        why.append(f"hold client exit status {r['hold_rc']}")
    if r.get("hold_rc") is None and not why:
        why.append("hold client not run")
    if not r.get("gw_alive", True):
        why.append("gateway died")
    if why:
        res["error"] = "; ".join(why)
    if r.get("rss_kb_idle") is not None and r.get("rss_kb_held") is not None:
        inc = (r["rss_kb_held"] - r["rss_kb_idle"]) * 1024
        res["rss_increase_mib"] = inc / 2**20
        res["rss_bytes_per_flow"] = inc / r["flows"]
        res["rss_held_mib"] = r["rss_kb_held"] / 1024
        res["rss_idle_mib"] = r["rss_kb_idle"] / 1024
        if r.get("rss_kb_released") is not None:
            res["rss_released_mib"] = r["rss_kb_released"] / 1024
    return res


def stat3(x):
    """median, min, max of a list (None for an empty one)."""
    x = [v for v in x if v is not None]
    return (med(x), min(x), max(x)) if x else (None, None, None)


def add_ratios(rows, key, out):
    """Ratio of each row's median `key` to the same number of REFS rows."""
    by = {r["path"]: r for r in rows}
    for r in rows:
        for ref in REFS:
            b = by.get(ref)
            v, w = r.get(key), b.get(key) if b else None
            r.setdefault(out, {})[ref] = v / w if v is not None and w else None


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
    legs = st.get("legs", ["tput"])
    lp = st.get("legs_paths") or legs_paths(d)
    skipped = man.get("skipped", [])
    notes = [{"path": x[0], "note": x[1] if len(x) > 1 else ""}
             for x in (l.split("\t", 1) for l in (read(os.path.join(d, "notes.tsv"), "") or "").splitlines() if l)]
    skipped += [{"path": x[0], "reason": x[1] if len(x) > 1 else ""}
                for x in (l.split("\t", 1) for l in read(os.path.join(d, "skipped.tsv"), "").splitlines() if l)
                if {"path": x[0], "reason": x[1] if len(x) > 1 else ""} not in skipped]
    trials = [load_trial(d, t) for t in jsonl(os.path.join(d, "trials.jsonl"))]
    lat = [load_tool(d, r, "lat", st) for r in jsonl(os.path.join(d, "lat.jsonl"))]
    conn = [load_tool(d, r, "conn", st) for r in jsonl(os.path.join(d, "conn.jsonl"))]
    mem = [load_mem(d, r) for r in jsonl(os.path.join(d, "mem.jsonl"))]
    verify = jsonl(os.path.join(d, "verify.jsonl"))
    for v in verify:
        v["client_report"] = load_json_lines(os.path.join(d, v["client_out"]))
        v["server_report"] = load_json_lines(os.path.join(d, v["server_out"]))
        if v.get("gw_ticks") is not None:
            v["gw_cpu_s"] = v["gw_ticks"] / CLK_TCK
        if v.get("client_mode") != "echo" and v["server_rc"] == 0 and v["client_rc"] == 0:
            nb = parse_size(v["bytes"])
            add_loss(v, nb)
            try:
                c0, c1 = (json.load(open(os.path.join(d, v[k])))["counters"]
                          for k in ("slipway_before", "slipway_after"))
                for k in ("TCP_RETRANS_BYTES", "TCP_SACK_RESENT"):
                    v["sw_" + k.lower() + "_mb_per_gb"] = (c1.get(k, 0) - c0.get(k, 0)) / 1e6 / (nb / 1e9)
            except (OSError, ValueError, KeyError, TypeError):
                pass
    iffinal = {r["path"]: r["if"] for r in jsonl(os.path.join(d, "ifstats-final.jsonl"))}
    gwexit = dict(l.split() for l in read(os.path.join(d, "gw-exit.txt"), "").splitlines() if l.strip())

    def stats_json(rel):
        txt = read(os.path.join(d, rel))
        if not txt:
            return None
        try:
            return json.loads(txt)
        except ValueError:
            return {"unparsable": txt[:200]}

    # every slipway process of the run, with its counters at exit
    instances = []
    for p in paths:
        if is_sw(p):
            f = "slipway/stats.json" if p == "slipway" else f"slipway/stats-{p}.json"
            instances.append({"name": p, "stats_file": f, "exit": gwexit.get(p), "stats": stats_json(f)})
    for m in mem:
        if m["path"] == "slipway" and m.get("slipway_stats"):
            instances.append({"name": f"slipway (mem leg, trial {m['trial']})", "stats_file": m["slipway_stats"],
                              "exit": str(m.get("gw_exit")), "stats": stats_json(m["slipway_stats"])})
    sw_stats = next((i["stats"] for i in instances if i["name"] == "slipway"), None)

    # slipway counters per leg: difference of consecutive SIGUSR1 snapshots
    # of the same process, over every kind of leg in run order
    prev = {}
    for t in sorted(trials + lat + conn, key=lambda r: r["seq"]):
        if not is_sw(t["path"]) or not t.get("slipway_snapshot"):
            continue
        try:
            cur = json.load(open(os.path.join(d, t["slipway_snapshot"])))["counters"]
        except (OSError, ValueError, KeyError):
            continue
        pv = prev.get(t["path"])
        if pv is not None:
            t["slipway_delta"] = {k: v - pv.get(k, 0) for k, v in cur.items()
                                  if v - pv.get(k, 0) and k != "TCP_FLOWS_ACTIVE"}
        prev[t["path"]] = cur
    for t in trials:
        dlt, rcv = t.get("slipway_delta"), t.get("bytes_received")
        if dlt is not None and rcv:
            for k in ("TCP_RETRANS_BYTES", "TCP_SACK_RESENT"):
                t["sw_" + k.lower() + "_mb_per_gb"] = dlt.get(k, 0) / 1e6 / (rcv / 1e9)

    # ---- throughput rows -----------------------------------------------------
    measured = [t for t in trials if t["kind"] == "trial"]
    groups = {}
    for t in measured:
        groups.setdefault((t["streams"], t["dir"], t["path"]), []).append(t)
    rows = []
    for n in (st["streams"] if "tput" in legs else []):
        for dr in ("up", "down"):
            for p in lp.get("tput", paths):
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
                for k in ("retrans_segs_per_gb", "lost_mb_per_gb", "loss_data_pct", "loss_acks_pct",
                          "resent_lo_mb_per_gb", "resent_hi_mb_per_gb",
                          "sw_tcp_retrans_bytes_mb_per_gb", "sw_tcp_sack_resent_mb_per_gb"):
                    rows[-1][k] = med([t[k] for t in ok if t.get(k) is not None])
    byk = {(r["streams"], r["dir"], r["path"]): r for r in rows}
    for r in rows:
        for ref in REFS:
            b = byk.get((r["streams"], r["dir"], ref))
            r["vs_" + ref] = (r["median"] / b["median"]) if b and b["median"] and r["median"] is not None else None

    # ---- latency, connection rate and memory rows ------------------------------
    lat_m = [t for t in lat if t["kind"] == "trial"]
    lat_rows = []
    for p in lp.get("lat", []):
        ts = [t for t in lat_m if t["path"] == p]
        ok = [t["result"] for t in ts if "error" not in t]
        r = {"path": p, "trials": len(ts), "ok": len(ok)}
        for k in ("p50_us", "p90_us", "p99_us", "mean_us", "min_us", "max_us"):
            r[k], r[k + "_min"], r[k + "_max"] = stat3([j.get(k) for j in ok])
        lat_rows.append(r)
    add_ratios(lat_rows, "p50_us", "p50_vs")
    add_ratios(lat_rows, "p99_us", "p99_vs")
    conn_m = [t for t in conn if t["kind"] == "trial"]
    conn_rows = []
    for p in lp.get("conn", []):
        ts = [t for t in conn_m if t["path"] == p]
        ok = [t for t in ts if "error" not in t]
        r = {"path": p, "trials": len(ts), "ok": len(ok)}
        r["per_second"], r["per_second_min"], r["per_second_max"] = stat3([t["result"]["per_second"] for t in ok])
        r["connections"] = sum((t.get("result") or {}).get("connections", 0) for t in ts)
        r["errors"] = sum((t.get("result") or {}).get("errors", 0) or 0 for t in ts)
        r["gw_us_per_conn"] = med([t["gw_us_per_conn"] for t in ok if t.get("gw_us_per_conn") is not None])
        conn_rows.append(r)
    add_ratios(conn_rows, "per_second", "vs")
    mem_rows = []
    for p in lp.get("mem", []):
        ts = [m for m in mem if m["path"] == p]
        ok = [m for m in ts if "error" not in m]
        r = {"path": p, "trials": len(ts), "ok": len(ok),
             "flows": med([m["flows"] for m in ts]) if ts else st.get("mem_flows")}
        for k in ("rss_idle_mib", "rss_held_mib", "rss_released_mib", "rss_increase_mib", "rss_bytes_per_flow"):
            r[k], r[k + "_min"], r[k + "_max"] = stat3([m.get(k) for m in ok])
        r["fds_held"] = med([m["fds_held"] - m["fds_idle"] for m in ok
                             if m.get("fds_held") is not None and m.get("fds_idle") is not None])
        rel = [m.get("release_s") for m in ok]
        r["release_s"] = med(rel) if ok and None not in rel else None
        r["open_per_s"] = med([m["hold_held"]["per_second"] for m in ok if m.get("hold_held")])
        mem_rows.append(r)
    add_ratios(mem_rows, "rss_bytes_per_flow", "vs")
    targets = []
    sw_mem = next((r for r in mem_rows if r["path"] == "slipway"), None)
    if sw_mem and sw_mem["flows"] == 10000:
        v = sw_mem["rss_increase_mib"]
        targets.append({"target": f"slipway: at most {MEM_TARGET_MIB} MiB for 10,000 idle flows (RSS increase, median)",
                        "met": v is not None and v <= MEM_TARGET_MIB,
                        "detail": "no valid trial" if v is None else
                        f"{v:.1f} MiB (max {sw_mem['rss_increase_mib_max']:.1f}); "
                        f"RSS with the flows {sw_mem['rss_held_mib']:.1f} MiB"})
    # --watch (issue 26): a watched variant's throughput against the plain
    # tap path's, same window, per stream count and direction
    for wp in sorted({w["path"] for w in jsonl(os.path.join(d, "watch.jsonl"))}):
        cmp = []
        for r in rows:
            if r["path"] != wp or r["median"] is None:
                continue
            b = next((x for x in rows if x["path"] == "slipway" and x["streams"] == r["streams"]
                      and x["dir"] == r["dir"] and x["median"]), None)
            if b:
                cmp.append((r["median"] / b["median"], f"P{r['streams']} {DIRS[r['dir']]} "
                            f"{r['median'] / b['median']:.3f}"))
        if cmp:
            targets.append({"target": f"the cost of watching: {label(wp)} (watched) at least 0.98 of slipway tap's "
                                      "throughput (median over trials, every stream count and direction)",
                            "met": min(c[0] for c in cmp) >= 0.98,
                            "detail": "ratios " + ", ".join(c[1] for c in cmp) +
                            " (within the min–max spread of the trials, a ratio is noise)"})

    # ---- integrity gates ---------------------------------------------------
    gates = []

    def gate(name, ok, detail):
        gates.append({"gate": name, "ok": bool(ok), "detail": detail})

    if "tput" in legs:
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
    if "lat" in legs:
        bad = [f"#{t['seq']} {t['path']}: {t['error']}" for t in lat_m if "error" in t]
        gate(f"every latency trial completed, every echoed byte verified (swrr, {st.get('rr_count')} round trips)",
             not bad and lat_m, "; ".join(bad) or (f"{len(lat_m)} trials, "
                                                  f"{sum(t['result']['count'] for t in lat_m)} round trips"
                                                  if lat_m else "no trial ran"))
    if "conn" in legs:
        bad = [f"#{t['seq']} {t['path']}: {t['error']}" for t in conn_m if "error" in t]
        gate("every connection-rate trial: zero failed connections, every reply and EOF verified (swconn)",
             not bad and conn_m, "; ".join(bad) or (f"{len(conn_m)} trials, "
                                                   f"{sum(t['result']['connections'] for t in conn_m)} connections"
                                                   if conn_m else "no trial ran"))
    if "mem" in legs:
        bad = [f"#{m['seq']} {m['path']} trial {m['trial']}: {m['error']}" for m in mem if "error" in m]
        gate(f"idle flows: every connection of each mem leg ({st.get('mem_flows')}, or fewer where noted) "
             "established, verified, held and released, gateway alive", not bad and mem,
             "; ".join(bad) or (f"{len(mem)} legs, {sum(m['flows'] for m in mem)} flows" if mem else "no leg ran"))
    bad = [f"#{t['seq']} {t['path']}" for t in trials + lat + conn + mem if t.get("gw_alive") is False]
    gate("gateway processes alive through every trial", not bad, "; ".join(bad) or "yes")
    bad, seen = [], []
    finals = []
    for p in paths:
        snap = iffinal.get(p)
        if snap is None:
            last = [t for t in trials + lat + conn if t["path"] == p]
            snap = max(last, key=lambda t: t["seq"])["if_after"] if last else {}
        finals.append((p, snap))
    # a mem leg's gateway is gated from its start until the flows were held;
    # the release (thousands of FINs, paced) only for slipway: a peer that
    # cannot keep up with it is noted under the gate, not failed
    for m in mem:
        key = "if_final" if is_sw(m["path"]) or not m.get("if_held") else "if_held"
        finals.append((f"{m['path']} (mem leg, trial {m['trial']})", m.get(key) or {}))
    # the UDP legs overrun queues by design (UDP has no flow control: iperf3
    # -b 0 and swudp send as fast as they can); what the interfaces dropped
    # during them is their loss, reported there, and not gated here
    udrop, unote = udp_if_deltas(d), []
    for p, snap in finals:
        for ifn, v in snap.items():
            if v is None:
                bad.append(f"{p} {ifn}: counters unreadable")
                continue
            u = udrop.get((p, ifn))
            if u:
                v = [v[i] - u[i] if i < 4 else v[i] for i in range(len(v))]
                unote.append(f"{p} {ifn}: " + ", ".join(f"{k} {n}" for k, n in zip(IF_FIELDS[:4], u) if n))
            c = dict(zip(IF_FIELDS, v))
            seen.append(f"{p} {ifn.split(':')[1]} rx/tx {c['rx_packets']}/{c['tx_packets']} pkts")
            nz = {k: c[k] for k in IF_FIELDS[:4] if c[k]}
            if nz:
                bad.append(f"{p} {ifn}: {nz}")
    # where they happened: the legs whose before/after counters moved
    during = []
    for t in trials + lat + conn:
        for ifn, v in (t.get("if_after") or {}).items():
            b = (t.get("if_before") or {}).get(ifn)
            if v is None or b is None:
                continue
            nz = {k: v[i] - b[i] for i, k in enumerate(IF_FIELDS[:4]) if v[i] != b[i]}
            if nz:
                t["interface_errors"] = {ifn: nz}
                what = f"P{t['streams']} {t['dir']}" if "streams" in t else t["out"].split("/")[0]
                during.append(f"#{t['seq']} {t['kind']} {t['path']} {what}: "
                              + ", ".join(f"{k} +{n}" for k, n in nz.items()))
    for m in mem:
        for phase, a_, b_ in (("start-up", None, "if_idle"), ("opening and holding", "if_idle", "if_held"),
                              ("release and stop", "if_held", "if_final")):
            for ifn, v in (m.get(b_) or {}).items():
                b = (m.get(a_) or {}).get(ifn) if a_ else [0] * len(IF_FIELDS)
                if v is None or b is None:
                    continue
                nz = {k: v[i] - b[i] for i, k in enumerate(IF_FIELDS[:4]) if v[i] != b[i]}
                if nz:
                    m.setdefault("interface_errors", {})[phase] = nz
                    during.append(f"#{m['seq']} mem {m['path']} trial {m['trial']}, {phase}: "
                                  + ", ".join(f"{k} +{n}" for k, n in nz.items()))
    if bad and during:
        bad.append("during legs: " + "; ".join(during))
    peer_rel = [x for x in during if " mem " in x and "release and stop" in x
                and not any(f" mem {sw} " in x for sw in paths if is_sw(sw))]
    gate("zero drops and errors on the guest interfaces (rx/tx_dropped, rx/tx_errors, since creation)",
         not bad, "; ".join(bad) or ("all zero (" + "; ".join(seen) + ")" +
                                     ("; not gated, a peer's release of the mem leg's flows: " + "; ".join(peer_rel)
                                      if peer_rel else "") +
                                     ("; not gated, during the UDP legs (overload; see the UDP loss): " +
                                      "; ".join(unote) if unote else "")))
    if instances:
        why_all, dets = [], []
        for ins in instances:
            why = []
            if ins["exit"] != "0":
                why.append(f"exit status {ins['exit']}")
            s_ = ins["stats"]
            if not s_ or "counters" not in s_:
                why.append("no counters JSON at exit")
            else:
                c = s_["counters"]
                why += [f"{k}={c.get(k)}" for k in SW_ZERO if c.get(k, 0) != 0]
                if c.get("TCP_ACKED_BYTES") != c.get("TCP_HOST_READ_BYTES"):
                    why.append(f"TCP_ACKED_BYTES={c.get('TCP_ACKED_BYTES')} != TCP_HOST_READ_BYTES={c.get('TCP_HOST_READ_BYTES')}")
                if c.get("TCP_FLOWS_ACTIVE", 0) != 0:
                    why.append(f"TCP_FLOWS_ACTIVE={c['TCP_FLOWS_ACTIVE']} at exit")
                # the remote path's clients are not on H's loopback: all
                # through the tap, nothing spliced
                if ins["name"] == "slipway-remote" and (c.get("SPLICE_OPENED", 0) != 0 or (
                        not c.get("TCP_FLOWS_OPENED_HOST") and {"tput", "lat", "conn"} & set(legs))):
                    why.append(f"remote path: SPLICE_OPENED={c.get('SPLICE_OPENED')} (want 0), "
                               f"TCP_FLOWS_OPENED_HOST={c.get('TCP_FLOWS_OPENED_HOST')} (want > 0)")
            if why:
                why_all.append(f"{ins['name']}: " + ", ".join(why))
            else:
                c = s_["counters"]
                dets.append(f"{ins['name']}: exit 0; acked = read = {c['TCP_ACKED_BYTES']} B; guest bytes "
                            f"{c.get('TCP_GUEST_BYTES')}; {len(SW_ZERO)} error/malformed counters 0; retrans "
                            f"{c.get('TCP_RETRANS_BYTES')} B; flows {c.get('TCP_FLOWS_OPENED_GUEST')} opened by the "
                            f"guest, {c.get('TCP_FLOWS_OPENED_HOST')} through published ports "
                            f"({c.get('SPLICE_OPENED', 0)} spliced), {c.get('TCP_FLOWS_CLOSED')} closed, "
                            f"{c.get('TCP_FLOWS_RESET_BY_GUEST', 0) + c.get('TCP_FLOWS_RESET_BY_HOST', 0)} reset")
        gate("slipway counters at exit, every slipway process (edge errors, malformed frames, acked == read, "
             "no flow left; slipway remote: nothing spliced)", not why_all, "; ".join(why_all) or "; ".join(dets))
    if "tput" in legs:
        want = {(p, dr) for p in lp.get("tput", paths) for dr in ("up", "down")}
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
    # --watch: a watched trial whose watcher never reached slipway measured
    # nothing (slipway's CTL_REQUESTS, read before and after, must move)
    watch = jsonl(os.path.join(d, "watch.jsonl"))
    if watch:
        bad = [f"#{w['seq']} {w['path']} {w['leg']}: {w['requests']} requests" for w in watch
               if w.get("requests") is None or w["requests"] < 1]
        n = [w["requests"] for w in watch if w.get("requests") is not None]
        gate("--watch: in every watched trial the watcher's requests reached slipway (CTL_REQUESTS moved)",
             not bad, "; ".join(bad) or f"{len(watch)} watched trials, {min(n)}–{max(n)} requests each "
             f"({watch[0]['cmd']})")
    # --idle-flows: every holder held its flows through the run, released
    idle = jsonl(os.path.join(d, "idle.jsonl"))
    if idle:
        bad = [f"{i['path']}: {i['error']}" for i in idle if i.get("error")]
        gate(f"--idle-flows: every slipway tap path held {idle[0]['flows']} idle verified flows through the run, "
             "none dropped, all released", not bad, "; ".join(bad) or f"{len(idle)} paths")
    udpl = udp_legs(d, st, legs, lp, gate)
    failed = [g for g in gates if not g["ok"]]

    # ---- outputs -------------------------------------------------------------
    summary = {"throughput": rows, "latency": lat_rows, "connection_rate": conn_rows, "memory": mem_rows,
               **udpl["summary"]}
    raw = {"manifest": "manifest.json", "settings": st, "paths": paths, "legs_paths": lp, "skipped": skipped,
           "notes": notes,
           "trials": trials, "verify": verify, "latency": lat, "connection_rate": conn, "memory": mem,
           "interfaces_final": iffinal, "gateway_exit": gwexit, "slipway_stats_at_exit": sw_stats,
           "slipway_instances": instances, "summary": rows, "summary_legs": summary,
           "targets": targets, "gates": gates, **udpl["raw"]}
    with open(os.path.join(d, "raw.json"), "w") as f:
        json.dump(raw, f, indent=1, ensure_ascii=False)
    man["gates_failed"] = [g["gate"] for g in failed]
    with open(os.path.join(d, "manifest.json"), "w") as f:
        json.dump(man, f, indent=1, ensure_ascii=False)
    plots = make_plots(d, rows, lp.get("tput", []), st, man, lat_rows, conn_rows, mem_rows, udpl["summary"])
    md = table_md(man, rows, lp.get("tput", []), gates, skipped, verify, plots, lat_rows, conn_rows,
                  mem_rows, targets, notes, udpl["md"])
    with open(os.path.join(d, "table.md"), "w") as f:
        f.write(md)
    print(md)
    print(f"results: {d}")
    if failed:
        print(f"GATES FAILED: {len(failed)}: " + "; ".join(g["gate"] for g in failed), file=sys.stderr)
        return 1
    return 0


# ---- the UDP legs (udp, udprr, dns) -----------------------------------------
UDP_VARIANTS = {"iperf3": "iperf3 -u -b 0 -l 1400", "gso": "swudp send --gso 40 --size 1400 (UDP GSO)"}


def udp_refs(p):
    """The kernel and pasta references of a path: the remote ones for the
    remote paths (the same hops), else veth and pasta."""
    return ("veth-remote", "pasta-remote") if p in REMOTE else ("veth", "pasta")


def udp_if_deltas(d):
    """{(path, "ns:if"): [rx_dropped, tx_dropped, rx_errors, tx_errors]}
    summed over the UDP legs' records (before/after each)."""
    acc = {}
    for f in ("udp.jsonl", "udpverify.jsonl", "udprr.jsonl", "dns.jsonl"):
        for r in jsonl(os.path.join(d, f)):
            for ifn, v in (r.get("if_after") or {}).items():
                b = (r.get("if_before") or {}).get(ifn)
                if v is None or b is None:
                    continue
                a = acc.setdefault((r["path"], ifn), [0, 0, 0, 0])
                for i in range(4):
                    a[i] += v[i] - b[i]
    return {k: v for k, v in acc.items() if any(v)}


def udp_stream_rec(d, r):
    """A swudp send record (gso trial or verify run) with its receiver's
    JSON: delivered Gbit/s (bytes received over the sender's seconds),
    loss, and "error" when the stream failed its integrity check."""
    res = dict(r)
    snd = load_json_lines(os.path.join(d, r["out"]))
    rcv = load_json_lines(os.path.join(d, r["recv_out"]))
    rrc = (read(os.path.join(d, r["recv_out"] + ".rc"), "") or "").strip()
    s, v = (snd[-1] if snd else None), (rcv[-1] if rcv else None)
    res["send"], res["recv"] = s, v
    res["recv_rc"] = int(rrc) if rrc.lstrip("-").isdigit() else None
    res["gw_cpu_s"] = r["gw_ticks"] / CLK_TCK if r.get("gw_ticks") is not None else None
    why = []
    if s is None:
        why.append(f"no JSON from swudp send (exit status {r['rc']})")
    if v is None:
        why.append("no JSON from swudp recv")
    else:
        bad = {k: v.get(k) for k in ("corrupt", "dup", "reordered") if v.get(k)}
        if bad:
            why.append("receiver: " + ", ".join(f"{n} {k}" for k, n in bad.items()))
        if not v.get("datagrams"):
            why.append("nothing received")
    if res["recv_rc"] not in (0, None) and not why:
        why.append(f"swudp recv exit status {res['recv_rc']}")
    if r["rc"] != 0 and not why:
        why.append(f"swudp send exit status {r['rc']}")
    if not r.get("gw_alive", True):
        why.append("gateway died")
    if s and v and s.get("seconds"):
        res["gbps"] = v["bytes"] * 8 / s["seconds"] / 1e9
        res["loss_pct"] = 100.0 * (1 - v["datagrams"] / s["datagrams"]) if s.get("datagrams") else None
        res["offered_gbps"] = s.get("gbps")
        if res["gw_cpu_s"] is not None and v["bytes"]:
            res["gw_s_per_gb"] = res["gw_cpu_s"] / (v["bytes"] / 1e9)
    if why:
        res["error"] = "; ".join(why)
    return res


def udp_iperf_rec(d, r):
    """An iperf3 -u record: the receiver's figures (end.sum_received:
    delivered Gbit/s, lost %), gateway CPU per GB delivered."""
    res = dict(r)
    res["gw_cpu_s"] = r["gw_ticks"] / CLK_TCK if r.get("gw_ticks") is not None else None
    try:
        j = json.load(open(os.path.join(d, r["out"])))
    except (OSError, ValueError):
        j = {}
    rcv = (j.get("end") or {}).get("sum_received")
    snd = (j.get("end") or {}).get("sum_sent")
    if j.get("error") or not rcv:
        res["error"] = j.get("error") or f"no receiver summary from iperf3 (exit status {r['rc']})"
        return res
    if r["rc"] != 0:
        res["error"] = f"exit status {r['rc']}"
    if not r.get("gw_alive", True):
        res["error"] = "gateway died"
    res["gbps"] = rcv["bits_per_second"] / 1e9
    res["loss_pct"] = rcv.get("lost_percent")
    res["bytes_received"] = rcv.get("bytes")
    res["offered_gbps"] = snd["bits_per_second"] / 1e9 if snd else None
    if res["gw_cpu_s"] is not None and rcv.get("bytes"):
        res["gw_s_per_gb"] = res["gw_cpu_s"] / (rcv["bytes"] / 1e9)
    return res


def udp_legs(d, st, legs, lp, gate):
    """The udp, udprr and dns legs: their records, summary rows, gates (via
    gate()), the issue-27 targets and the markdown section."""
    out = {"raw": {}, "summary": {}, "md": []}
    if not {"udp", "udprr", "dns"} & set(legs):
        return out
    L = out["md"]
    udp = []
    for r in jsonl(os.path.join(d, "udp.jsonl")):
        udp.append(udp_iperf_rec(d, r) if r.get("variant") == "iperf3" else udp_stream_rec(d, r))
    uver = [udp_stream_rec(d, r) for r in jsonl(os.path.join(d, "udpverify.jsonl"))]
    udprr = [load_tool(d, r, "udprr", st) for r in jsonl(os.path.join(d, "udprr.jsonl"))]
    dns = [load_tool(d, r, "dns", st) for r in jsonl(os.path.join(d, "dns.jsonl"))]
    # "error": the trial is left out of the numbers; "integrity": it also
    # fails the gate (a wrong echo or answer, a dead gateway); a path that
    # answered nothing (a peer's limit) is only left out and listed
    for t in udprr + dns:
        j = t.get("result") or {}
        if j.get("bad"):
            t["error"] = t["integrity"] = f"{j['bad']} wrong answers"
        if not t.get("gw_alive", True):
            t["error"] = t["integrity"] = "gateway died"
        if "error" not in t and not j.get("exchanges", j.get("answers")):
            t["error"] = "no exchange completed"
    out["raw"] = {"udp": udp, "udp_verify": uver, "udprr": udprr, "dns": dns}
    targets = []

    def ratio(rows, key, p, ref, match):
        b = next((x for x in rows if x["path"] == ref and match(x)), None)
        v = next((x for x in rows if x["path"] == p and match(x)), None)
        return v[key] / b[key] if v and b and v.get(key) is not None and b.get(key) else None

    def mmr(r, key, nd=2):
        return f"{fmt(r[key], nd)} ({fmt(r[key + '_min'], nd)}–{fmt(r[key + '_max'], nd)})"

    def rfmt(x):
        return "–" if x is None else f"{x:.2f}×"

    # ---- udp -----------------------------------------------------------------
    rows = []
    if "udp" in legs:
        m = [t for t in udp if t["kind"] == "trial"]
        for var in UDP_VARIANTS:
            for dr in ("down", "up"):
                for p in lp.get("udp", []):
                    ts = [t for t in m if t["path"] == p and t.get("variant") == var and t.get("dir") == dr]
                    ok = [t for t in ts if "error" not in t]
                    r = {"variant": var, "dir": dr, "path": p, "trials": len(ts), "ok": len(ok)}
                    for k in ("gbps", "loss_pct", "gw_s_per_gb", "offered_gbps"):
                        r[k], r[k + "_min"], r[k + "_max"] = stat3([t.get(k) for t in ok])
                    rows.append(r)
        for r in rows:
            kv, kp = udp_refs(r["path"])
            same = (lambda x, r=r: x["variant"] == r["variant"] and x["dir"] == r["dir"])
            r["vs_veth"] = ratio(rows, "gbps", r["path"], kv, same)
            r["vs_pasta"] = ratio(rows, "gbps", r["path"], kp, same)
        # a peer whose iperf3 trial failed (its limit, not an integrity
        # matter: swudp checks that) is left out of the numbers and listed
        def gated(t):
            return t.get("variant") != "iperf3" or is_sw(t["path"]) or t["path"].startswith("veth")
        bad = [f"#{t['seq']} {t['path']} {t.get('variant')} {t.get('dir')}: {t['error']}" for t in m
               if "error" in t and gated(t)]
        left = [f"#{t['seq']} {t['path']} {t.get('variant')} {t.get('dir')}: {t['error']}" for t in m
                if "error" in t and not gated(t)]
        gate("every UDP trial completed (iperf3 -u through slipway and the kernel: a receiver summary; swudp GSO "
             "streams: no corrupt, duplicated or reordered datagram)", not bad and m, "; ".join(bad) or
             (f"{len(m)} trials" if m else "no trial ran") +
             ("; a peer's failed iperf3 trials, left out of the numbers, not gated: " + "; ".join(left)
              if left else ""))
        bad = [f"{v['path']} {v['dir']}: {v['error']}" for v in uver if "error" in v]
        want = {(p, dr) for p in lp.get("udp", []) for dr in ("up", "down")}
        got = {(v["path"], v["dir"]) for v in uver}
        bad += [f"{p} {dr}: not run" for p, dr in sorted(want - got)]
        gate("UDP payload verified by swudp, one stream per path and direction (corrupt = dup = reordered = 0; "
             "loss reported, not gated)", not bad and uver, "; ".join(bad) or
             (f"{len(uver)} streams, {sum(v['recv']['datagrams'] for v in uver)} datagrams verified"
              if uver else "no stream ran"))
        L.append("## UDP throughput (delivered)")
        L.append("")
        L.append("Gbit/s delivered: for iperf3 the receiver's figure (`end.sum_received.bits_per_second`, "
                 "lost datagrams excluded), for the UDP GSO sender the bytes swudp recv verified over the "
                 "sender's seconds. Loss: datagrams sent and not received. Gateway CPU: its utime+stime per GB "
                 "delivered. Median (min–max) over the trials; ratios of medians (remote paths: against "
                 "veth-remote and pasta-remote).")
        L.append("")
        for var, title in UDP_VARIANTS.items():
            L.append(f"### {title}")
            L.append("")
            L.append("| direction | path | Gbit/s delivered | loss % | gateway s/GB | vs veth | vs pasta | trials |")
            L.append("|---|---|---:|---:|---:|---:|---:|---:|")
            for r in rows:
                if r["variant"] != var:
                    continue
                L.append(f"| {DIRS[r['dir']]} | {label(r['path'])} | {mmr(r, 'gbps')} | {fmt(r['loss_pct'], 1)} | "
                         f"{fmt(r['gw_s_per_gb'], 2)} | {rfmt(r['vs_veth'])} | {rfmt(r['vs_pasta'])} | "
                         f"{r['ok']}/{r['trials']} |")
            L.append("")
        if uver:
            L.append("Payload-verified UDP streams (swudp send --flows 4 --size 1400, as fast as possible):")
            L.append("")
            for v in uver:
                rc = v.get("recv") or {}
                L.append(f"- {label(v['path'])} {DIRS[v['dir']]}: "
                         f"{'verified' if 'error' not in v else 'FAILED: ' + v['error']}; "
                         f"{rc.get('datagrams', 0)} datagrams, lost {rc.get('lost', '–')}, "
                         f"{fmt(v.get('gbps'), 2)} Gbit/s delivered")
            L.append("")
        for p in lp.get("udp", []):
            if not p.startswith("slipway"):
                continue
            kv, kp = udp_refs(p)
            for dr in ("down", "up"):
                same = (lambda x, dr=dr: x["variant"] == "iperf3" and x["dir"] == dr)
                a, b = ratio(rows, "gbps", p, kv, same), ratio(rows, "gbps", p, kp, same)
                targets.append({"target": f"{label(p)} UDP {DIRS[dr]}: at least 0.8× {kv} and 2× {kp} (delivered)",
                                "met": a is not None and b is not None and a >= 0.8 and b >= 2,
                                "detail": f"{rfmt(a)} {kv}, {rfmt(b)} {kp}"})
                same = (lambda x, dr=dr: x["variant"] == "gso" and x["dir"] == dr)
                a = ratio(rows, "gbps", p, kv, same)
                targets.append({"target": f"{label(p)} UDP GSO sender {DIRS[dr]}: at least 0.8× {kv}",
                                "met": a is not None and a >= 0.8, "detail": rfmt(a)})
    out["summary"]["udp"] = rows

    # ---- udprr ---------------------------------------------------------------
    rr_rows = []
    if "udprr" in legs:
        m = [t for t in udprr if t["kind"] == "trial"]
        for sz in (64, 1200):
            for p in lp.get("udprr", []):
                ts = [t for t in m if t["path"] == p and t.get("size") == sz]
                ok = [t["result"] for t in ts if "error" not in t]
                r = {"path": p, "size": sz, "trials": len(ts), "ok": len(ok),
                     "lost": sum((t.get("result") or {}).get("lost", 0) for t in ts)}
                for k in ("per_second", "p50_us", "p99_us"):
                    r[k], r[k + "_min"], r[k + "_max"] = stat3([j.get(k) for j in ok])
                rr_rows.append(r)
        for r in rr_rows:
            kv, kp = udp_refs(r["path"])
            same = (lambda x, r=r: x["size"] == r["size"])
            r["vs_veth"] = ratio(rr_rows, "per_second", r["path"], kv, same)
            r["vs_pasta"] = ratio(rr_rows, "per_second", r["path"], kp, same)
            if r["path"].startswith("slipway"):
                targets.append({"target": f"{label(r['path'])} UDP request/response, 1,000 flows, {r['size']} B: "
                                          f"at least 0.8× {kv}",
                                "met": r["vs_veth"] is not None and r["vs_veth"] >= 0.8, "detail": rfmt(r["vs_veth"])})
        bad = [f"#{t['seq']} {t['path']} {t.get('size')} B: {t['integrity']}" for t in m if "integrity" in t]
        left = [f"#{t['seq']} {t['path']} {t.get('size')} B: {t['error']}" for t in m
                if "error" in t and "integrity" not in t]
        gate("every UDP request/response trial: every echo verified byte by byte (swudp rr, 1,000 flows)",
             not bad and m, "; ".join(bad) or (f"{len(m)} trials, "
                                               f"{sum((t.get('result') or {}).get('exchanges', 0) for t in m)} "
                                               "exchanges" if m else "no trial ran") +
             ("; left out of the numbers, not gated: " + "; ".join(left) if left else ""))
        L.append("## UDP request/response, 1,000 flows (swudp rr)")
        L.append("")
        L.append("One request in flight per flow, each echo verified; exchanges/s and the round trip's "
                 "p50/p99 in µs, median (min–max) over the trials; unanswered requests (lost) are summed.")
        L.append("")
        L.append("| size | path | exchanges/s | p50 µs | p99 µs | lost | vs veth | vs pasta | trials |")
        L.append("|---:|---|---:|---:|---:|---:|---:|---:|---:|")
        for r in rr_rows:
            L.append(f"| {r['size']} | {label(r['path'])} | {mmr(r, 'per_second', 0)} | {mmr(r, 'p50_us', 0)} | "
                     f"{mmr(r, 'p99_us', 0)} | {r['lost']} | {rfmt(r['vs_veth'])} | {rfmt(r['vs_pasta'])} | "
                     f"{r['ok']}/{r['trials']} |")
        L.append("")
    out["summary"]["udprr"] = rr_rows

    # ---- dns -----------------------------------------------------------------
    dns_rows = []
    if "dns" in legs:
        m = [t for t in dns if t["kind"] == "trial"]
        for p in lp.get("dns", []):
            ts = [t for t in m if t["path"] == p]
            ok = [t["result"] for t in ts if "error" not in t]
            r = {"path": p, "trials": len(ts), "ok": len(ok),
                 "timeouts": sum((t.get("result") or {}).get("timeouts", 0) for t in ts)}
            for k in ("per_second", "p50_us", "p99_us"):
                r[k], r[k + "_min"], r[k + "_max"] = stat3([j.get(k) for j in ok])
            dns_rows.append(r)
        for r in dns_rows:
            kv, kp = udp_refs(r["path"])
            r["vs_veth"] = ratio(dns_rows, "per_second", r["path"], kv, lambda x: True)
            r["vs_pasta"] = ratio(dns_rows, "per_second", r["path"], kp, lambda x: True)
            if r["path"].startswith("slipway"):
                targets.append({"target": f"{label(r['path'])} DNS forwarder: at least 50,000 queries/s",
                                "met": r["per_second"] is not None and r["per_second"] >= 50000,
                                "detail": fmt(r["per_second"], 0)})
        bad = [f"#{t['seq']} {t['path']}: {t['integrity']}" for t in m if "integrity" in t]
        left = [f"#{t['seq']} {t['path']}: {t['error']}" for t in m if "error" in t and "integrity" not in t]
        gate("every DNS trial: every answer's id, question and record checked (swudp dns)",
             not bad and m, "; ".join(bad) or (f"{len(m)} trials, "
                                               f"{sum((t.get('result') or {}).get('answers', 0) for t in m)} answers"
                                               if m else "no trial ran") +
             ("; left out of the numbers, not gated: " + "; ".join(left) if left else ""))
        L.append("## DNS forwarder (swudp dns → forwarder → swudp dns-server in H)")
        L.append("")
        L.append("64 queries in flight from the guest to the gateway's DNS forwarder (slipway 10.0.2.3, pasta "
                 "--dns-forward 10.88.0.3 --dns-host 127.0.0.1), its upstream swudp dns-server on H's port 53; "
                 "veth (and veth-remote): the guest queries that server itself, the reference. "
                 "Queries/s answered, p50/p99 µs, median (min–max); timeouts summed.")
        L.append("")
        L.append("| path | queries/s | p50 µs | p99 µs | timeouts | vs veth | vs pasta | trials |")
        L.append("|---|---:|---:|---:|---:|---:|---:|---:|")
        for r in dns_rows:
            L.append(f"| {label(r['path'])} | {mmr(r, 'per_second', 0)} | {mmr(r, 'p50_us', 0)} | "
                     f"{mmr(r, 'p99_us', 0)} | {r['timeouts']} | {rfmt(r['vs_veth'])} | {rfmt(r['vs_pasta'])} | "
                     f"{r['ok']}/{r['trials']} |")
        L.append("")
    out["summary"]["dns"] = dns_rows
    bad = [f"#{t['seq']} {t['path']}" for t in udp + uver + udprr + dns if t.get("gw_alive") is False]
    gate("gateway processes alive through every UDP leg", not bad, "; ".join(bad) or "yes")
    if targets:
        L.append("### Issue 27 targets (reported, not gated)")
        L.append("")
        for t in targets:
            L.append(f"- {'met' if t['met'] else 'NOT met'}: {t['target']}: {t['detail']}")
        L.append("")
    out["raw"]["udp_targets"] = targets
    return out


def text_chart(rows, paths, st):
    """Bars in text, one block per stream count and direction."""
    top = max([r["max"] for r in rows if r["max"] is not None] or [1])
    width = 40
    lw = max([18] + [len(label(p)) for p in paths])
    out = []
    for n in st["streams"]:
        for dr in ("up", "down"):
            out.append(f"P{n} {DIRS[dr]}")
            for p in paths:
                r = next((r for r in rows if (r["streams"], r["dir"], r["path"]) == (n, dr, p)), None)
                if not r or r["median"] is None:
                    out.append(f"  {label(p):{lw}} (no result)")
                    continue
                k = int(round(r["median"] / top * width))
                out.append(f"  {label(p):{lw}} {'█' * k}{' ' * (width - k)} {r['median']:5.1f} ({r['min']:.1f}–{r['max']:.1f})")
            out.append("")
    return "\n".join(out).rstrip() + "\n"


def mm(lo, hi, nd=1):
    return f"{fmt(lo, nd)}–{fmt(hi, nd)}" if lo is not None else "–"


# the reference columns a table shows: the first three always, passt stream
# when the run has it (table_md sets it)
REFS_SHOWN = list(REFS[:3])


def ratios(r, key):
    return " | ".join(fmt(r[key][ref], 2) if r[key].get(ref) is not None else "–" for ref in REFS_SHOWN)


def ref_hdr(first=""):
    """Header cells of the ratio columns; `first` prefixes the first one."""
    return " | ".join((first + REF_LABEL[r]) if i == 0 else REF_LABEL[r] for i, r in enumerate(REFS_SHOWN))


def ref_sep():
    return "---:|" * len(REFS_SHOWN)


def remote_note(paths):
    """The throughput notes' sentence on the remote paths, when they ran."""
    if not any(p in REMOTE for p in paths):
        return ""
    return (" Remote paths: the client is in its own namespace C behind a veth pair to H (10.201.0.2 ↔ "
            "10.201.0.1, MTU 65520) and the servers in the guest; slipway remote and pasta remote publish the "
            "ports on H's 10.201.0.1 (not loopback: neither can splice, both take the tap), veth remote is H's "
            "kernel forwarding between that veth and a second one to the guest (10.202.0.1 ↔ 10.202.0.2): the "
            "same hops, the kernel's reference (vs veth remote). As for slipway splice, -R where needed so that "
            "guest→host means the guest's server sends to C.")


def loss_table(rows, st, verify):
    """The --loss tables: what was lost and what was resent, per GB."""
    L = [f"## Loss {st['loss_pct']:g}% each way: throughput, losses and resends per GB received", "",
         "| P | direction | path | median Gbit/s | min–max | lost data % | lost ACKs % | lost data MB/GB "
         "| resent MB/GB (wire, bounds) | sender retrans segs/GB | slipway resent MB/GB | of which SACK holes MB/GB |",
         "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        note = "" if r["ok"] == r["trials"] else f" ({r['ok']}/{r['trials']} ok)"
        # the iperf3 sender faces the loss: a kernel path, or the guest sends
        own = not is_gw(r["path"]) or r["dir"] == "up"
        sw = is_sw(r["path"]) and r["dir"] == "down"
        L.append(f"| {r['streams']} | {DIRS[r['dir']]} | {label(r['path'])}{note} | {fmt(r['median'], 2)} | "
                 f"{mm(r['min'], r['max'], 2)} | {fmt(r['loss_data_pct'], 2)} | {fmt(r['loss_acks_pct'], 2)} | "
                 f"{fmt(r['lost_mb_per_gb'], 1)} | {mm(r['resent_lo_mb_per_gb'], r['resent_hi_mb_per_gb'])} | "
                 f"{fmt(r['retrans_segs_per_gb'], 0) if own else '–'} | "
                 f"{fmt(r['sw_tcp_retrans_bytes_mb_per_gb'], 1) if sw else '–'} | "
                 f"{fmt(r['sw_tcp_sack_resent_mb_per_gb'], 1) if sw else '–'} |")
    L += ["", "Medians over trials, per GB (10^9 bytes) the iperf3 receiver got. Lost: the share of the packets "
          "the swloss rules lost in the trial in the payload's direction (data) and the other (ACKs), and the "
          "data direction's lost IP bytes (the least a sender has to resend), from the table's counters. Resent "
          f"(wire, bounds): the data direction's IP bytes at the guest interface, the lost included, less {HDR} "
          "bytes a packet, minus at most what iperf3's sender wrote and at least what its receiver counted "
          "(the unique payload that crossed lies between): the same measure for every path, wide when much was "
          "in flight at the end. Sender "
          "retrans segs/GB: iperf3's end.sum_sent.retransmits (the sending socket's kernel count, also with -R), "
          "where that socket faces the loss (the kernel paths both ways; guest→host through a gateway: the "
          "guest's kernel); host→guest through a gateway the gateway resends, not iperf3's sender (–). slipway "
          "resent: the delta of its TCP_RETRANS_BYTES over the trial (SIGUSR1 snapshots), of which "
          "TCP_SACK_RESENT: resent into holes its SACK scoreboard showed. Resent bytes for every path: the "
          "next table.", ""]
    vs = [v for v in verify if v.get("client_mode") != "echo"]
    if vs:
        L += [f"### Resent bytes, every path: the payload-verified transfers ({st.get('verify_bytes')} each, "
              "swverify, once per path and direction)", "",
              "| direction | path | Gbit/s | lost data % | lost ACKs % | data packet B | lost data MB/GB "
              "| resent MB/GB (wire) | slipway resent MB/GB | of which SACK holes MB/GB |",
              "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for v in sorted(vs, key=lambda v: (v["dir"] != "up", v["path"])):
            g = [c.get("gbps") for c in v.get("client_report", []) if "gbps" in c]
            ok = v["server_rc"] == 0 and v["client_rc"] == 0
            sw = is_sw(v["path"]) and v["dir"] == "down"
            L.append(f"| {DIRS[v['dir']]} | {label(v['path'])}{'' if ok else ' (FAILED)'} | "
                     f"{fmt(g[-1] if g else None, 2)} | {fmt(v.get('loss_data_pct'), 2)} | "
                     f"{fmt(v.get('loss_acks_pct'), 2)} | {fmt(v.get('data_pkt_bytes'), 0)} | "
                     f"{fmt(v.get('lost_mb_per_gb'), 1)} | {fmt(v.get('resent_mb_per_gb'), 1)} | "
                     f"{fmt(v.get('sw_tcp_retrans_bytes_mb_per_gb'), 1) if sw else '–'} | "
                     f"{fmt(v.get('sw_tcp_sack_resent_mb_per_gb'), 1) if sw else '–'} |")
        L += ["", "One transfer of exactly the verified size per row, so the unique payload is known: resent "
              "(wire) = the IP bytes that crossed the guest interface in the payload's direction, the lost "
              f"ones included, less {HDR} bytes of headers a packet (TCP options not counted: at most 0.2 MB/GB "
              "with 64 KiB packets), minus that size; the same measure for every path and the sender's own "
              "count for none. It is at least the lost data; above it are spurious resends. slipway resent: "
              "its TCP_RETRANS_BYTES over the same transfer (SIGUSR1 snapshots), a cross-check of the wire "
              "number. A failed transfer has no numbers.", ""]
    return L


def table_md(man, rows, paths, gates, skipped, verify, plots, lat_rows, conn_rows, mem_rows, targets, notes,
             udp_md=()):
    st = man["settings"]
    legs = st.get("legs", ["tput"])
    REFS_SHOWN[:] = [r for r in REFS if r in REFS[:3] or r in paths]
    L = []
    smoke = st["trials"] < 3
    L.append(f"# slipway against the kernel and the peers, same window ({man['date_utc'][:10]})")
    L.append("")
    if smoke:
        L.append(f"**SMOKE RUN: {st['trials']} trial(s); results need at least 3.**")
        L.append("")
    L.append(f"`{man['argv']}`: legs {' '.join(legs)}; {st['trials']} interleaved trials "
             f"(order: {st['order']}); "
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
    if st.get("loss_pct"):
        lif = ", ".join(f"{label(p)} {i['loss_interface'].split(':', 1)[1]}"
                        for p, i in man.get("paths", {}).items() if i.get("loss_interface"))
        L.append("")
        L.append(f"**Loss: {st['loss_pct']:g}% of the IP packets lost each way on every path's guest interface** "
                 f"(nftables in the guest namespace, table `netdev swloss` on {lif}: `numgen random mod 1000 < "
                 f"{st['loss_per_mille']}` dropped at the ingress hook, and at the egress hook stolen with "
                 f"`fwd to` a sink veth whose peer is down, so that the guest's stack sees them sent).")
    if "slipway-splice" in man.get("paths", {}):
        L.append("")
        if st.get("slipway_has_no_splice"):
            L.append("slipway has `--no-splice`: the `slipway tap` legs through published ports pass it; "
                     "`slipway splice` uses the splice fast path.")
        else:
            L.append("**This slipway has no `--no-splice` (no splice fast path): `slipway splice` "
                     "(host loopback → published port → guest) goes through the tap like `slipway tap`.**")
    L.append("")
    if rows:
        L.append(f"## TCP throughput and CPU per GB (iperf3 -t {st['seconds']}, "
                 f"P {' / '.join(map(str, st['streams']))})")
        L.append("")
        L.append(f"| P | direction | path | median Gbit/s | min–max | {ref_hdr()} | "
                 "gateway CPU s/GB | gateway busy CPUs | system CPU s/GB |")
        L.append(f"|---|---|---|---:|---:|{ref_sep()}---:|---:|---:|")
        for r in rows:
            note = "" if r["ok"] == r["trials"] else f" ({r['ok']}/{r['trials']} ok)"
            L.append(f"| {r['streams']} | {DIRS[r['dir']]} | {label(r['path'])}{note} | {fmt(r['median'])} | "
                     f"{mm(r['min'], r['max'])} | "
                     f"{' | '.join(fmt(r['vs_' + ref], 2) for ref in REFS_SHOWN)} | "
                     f"{fmt(r['gw_s_per_gb'], 3) if is_gw(r['path']) else '–'} | "
                     f"{fmt(r['gw_cpus'], 2) if is_gw(r['path']) else '–'} | {fmt(r['sys_s_per_gb'], 3)} |")
        L.append("")
        L.append("Gbit/s: iperf3's receiver-side rate (sum over streams). vs veth / vs pasta / vs pasta splice: "
                 "ratio of medians in the same row group (pasta = pasta's tap path). Gateway CPU: utime+stime of the "
                 "gateway process (all threads) over the trial, per GB (10^9 bytes) received; gateway busy CPUs: the "
                 "same CPU time over the trial's wall time (1.00 = one core saturated); system CPU: busy time "
                 "of all CPUs (/proc/stat, everything on the machine: iperf3 both ends, kernel, gateway) per GB. "
                 "For loopback the \"guest\" is the client in H; for slipway splice the iperf3 client is in H "
                 "(127.0.0.1, a port slipway publishes) and the server in the guest, with -R where needed so that "
                 "guest→host still means the guest sends." + remote_note(paths))
        L.append("")
        L.append("```")
        L.append(text_chart(rows, paths, st).rstrip())
        L.append("```")
        L.append("")
    if rows and st.get("loss_pct"):
        L += loss_table(rows, st, verify)
    if lat_rows:
        L.append(f"## Request/response latency (swrr: {st.get('rr_count')} round trips of {st.get('rr_size')} "
                 "bytes per trial, one TCP_NODELAY connection)")
        L.append("")
        L.append(f"| path | p50 µs | min–max | p99 µs | min–max | mean µs | {ref_hdr('p50 ')} "
                 f"| {ref_hdr('p99 ')} |")
        L.append(f"|---|---:|---:|---:|---:|---:|{ref_sep()}{ref_sep()}")
        for r in lat_rows:
            note = "" if r["ok"] == r["trials"] else f" ({r['ok']}/{r['trials']} ok)"
            L.append(f"| {label(r['path'])}{note} | {fmt(r['p50_us'])} | {mm(r['p50_us_min'], r['p50_us_max'])} | "
                     f"{fmt(r['p99_us'])} | {mm(r['p99_us_min'], r['p99_us_max'])} | {fmt(r['mean_us'])} | "
                     f"{ratios(r, 'p50_vs')} | {ratios(r, 'p99_vs')} |")
        L.append("")
        L.append("Per trial, swrr times every round trip (write of the message to the last byte of its echo, "
                 "CLOCK_MONOTONIC) and takes nearest-rank percentiles; the table gives the median over trials of "
                 "each trial's p50, p99 and mean, and the min–max of those over trials. Ratios: median over "
                 "median (above 1 = slower than the reference). Client and server as in the throughput legs.")
        L.append("")
    if conn_rows:
        L.append(f"## Connection rate through a published port, host → guest (swconn: {st.get('conn_seconds')} s "
                 f"per trial, {st.get('conn_parallel')} in flight)")
        L.append("")
        L.append(f"| path | connections/s | min–max | {ref_hdr()} | gateway CPU µs/conn "
                 "| connections | failed |")
        L.append(f"|---|---:|---:|{ref_sep()}---:|---:|---:|")
        for r in conn_rows:
            note = "" if r["ok"] == r["trials"] else f" ({r['ok']}/{r['trials']} ok)"
            L.append(f"| {label(r['path'])}{note} | {fmt(r['per_second'], 0)} | "
                     f"{mm(r['per_second_min'], r['per_second_max'], 0)} | {ratios(r, 'vs')} | "
                     f"{fmt(r['gw_us_per_conn'], 1) if is_gw(r['path']) else '–'} | "
                     f"{r['connections']} | {r['errors']} |")
        L.append("")
        L.append("A client in H opens a connection, sends a 16-byte request, checks the 32-byte reply and the "
                 "server's EOF, closes, and opens the next. Targets: veth the guest's address 10.200.0.2; loopback "
                 "a server in H; slipway (`-t`), slipway splice (`-t`), pasta splice (`-t`) and slirp4netns "
                 "(API `add_hostfwd`) H's 127.0.0.1; pasta tap H's template address 10.88.0.1 (pasta splices "
                 "connections from loopback, so a non-loopback source takes its tap path). The server in the "
                 "guest closes after the reply." +
                 (" The remote paths' client is in C instead: slipway remote and pasta remote to H's 10.201.0.1 "
                  "(`-t 10.201.0.1/PORT`), veth remote to the guest's 10.202.0.2 through H."
                  if any(r["path"] in REMOTE for r in conn_rows) else ""))
        L.append("")
    if mem_rows:
        L.append(f"## Memory with {st.get('mem_flows')} idle flows (guest → H, a fresh gateway per trial)")
        L.append("")
        L.append("| gateway | flows | RSS idle MiB | RSS with flows MiB | increase MiB | min–max | bytes per flow "
                 "| vs pasta | RSS after release MiB | descriptors per flow | opened per s | released in s |")
        L.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for r in mem_rows:
            note = "" if r["ok"] == r["trials"] else f" ({r['ok']}/{r['trials']} ok)"
            fds = r["fds_held"] / r["flows"] if r["fds_held"] is not None and r["flows"] else None
            L.append(f"| {label(r['path'])}{note} | {fmt(r['flows'], 0)} | {fmt(r['rss_idle_mib'])} | {fmt(r['rss_held_mib'])} | "
                     f"{fmt(r['rss_increase_mib'])} | {mm(r['rss_increase_mib_min'], r['rss_increase_mib_max'])} | "
                     f"{fmt(r['rss_bytes_per_flow'], 0)} | {fmt(r['vs'].get('pasta'), 2)} | "
                     f"{fmt(r['rss_released_mib'])} | {fmt(fds, 2)} | {fmt(r['open_per_s'], 0)} | "
                     f"{fmt(r['release_s'], 1) if r['release_s'] is not None else ('> 20' if is_sw(r['path']) else '> 5')} |")
        L.append("")
        L.append("VmRSS of the gateway process (/proc/PID/status) half a second after it configured the guest, "
                 "and one second after the hold client (swconn hold, in the guest) had all its connections to a "
                 "server in H open and each verified by one request/reply; increase = the difference, bytes per "
                 "flow = increase / flows. Kernel socket memory is not in RSS. Medians over trials; vs pasta: "
                 "ratio of the bytes per flow. Descriptors per flow: the gateway's open files with the flows, less "
                 "idle, per flow. Opened per s: the hold client's rate (64 opening at once); released in s: "
                 "from the client's exit (closing 64 per 10 ms) until the gateway is back to its idle "
                 "descriptor count (waiting up to 20 s for slipway, 5 s for a peer, which may keep sockets in "
                 "its own TIME_WAIT: \"> 5\"). slipway allocates and touches its flow table (--max-flows entries) "
                 "at start-up, so the table is in the idle RSS and the increase is what flows cost beyond it.")
        L.append("")
    for tg in targets:
        L.append(f"Target: **{'MET' if tg['met'] else 'MISSED'}** {tg['target']}: {tg['detail']} "
                 "(a target, not an integrity gate)")
        L.append("")
    if plots:
        L.append("Plots: " + ", ".join(f"`{p}`" for p in plots) + " in the results directory.")
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
            L.append(f"- {label(v['path'])} {DIRS[v['dir']]}: "
                     f"{'verified' if v['server_rc'] == 0 and v['client_rc'] == 0 else 'FAILED'}"
                     f"{', %.1f Gbit/s' % g[-1] if g else ''}"
                     f"{' (echo: the client sends, the guest returns; see Notes)' if v.get('client_mode') == 'echo' else ''}")
        L.append("")
    L += udp_md
    if notes:
        L.append("## Notes")
        L.append("")
        for n in notes:
            L.append(f"- {n['path']}: {n['note']}")
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


def leg_panels(lat_rows, conn_rows, mem_rows, st, udp=None):
    """The bar panels of the lat, conn, mem and UDP legs: (title, unit,
    bars), bars as (path, median, min, max)."""
    panels = []
    udp = udp or {}
    for var, title in UDP_VARIANTS.items():
        for dr in ("down", "up"):
            b = [(r["path"], r["gbps"], r["gbps_min"], r["gbps_max"]) for r in udp.get("udp", [])
                 if r["variant"] == var and r["dir"] == dr]
            if b:
                panels.append((f"UDP delivered Gbit/s, {title}, {DIRS[dr]}", b))
    for sz in (64, 1200):
        b = [(r["path"], r["per_second"], r["per_second_min"], r["per_second_max"]) for r in udp.get("udprr", [])
             if r["size"] == sz]
        if b:
            panels.append((f"UDP request/response, 1,000 flows, {sz} B: exchanges/s", b))
    b = [(r["path"], r["per_second"], r["per_second_min"], r["per_second_max"]) for r in udp.get("dns", [])]
    if b:
        panels.append(("DNS forwarder: queries/s (veth: the upstream directly)", b))
    if lat_rows:
        for k, name in (("p50_us", "p50"), ("p99_us", "p99")):
            panels.append((f"request/response latency {name} ({st.get('rr_size')} B), µs", [
                (r["path"], r[k], r[k + "_min"], r[k + "_max"]) for r in lat_rows]))
    if conn_rows:
        panels.append(("connections per second, host → published port → guest", [
            (r["path"], r["per_second"], r["per_second_min"], r["per_second_max"]) for r in conn_rows]))
    if mem_rows:
        panels.append(("gateway RSS increase per idle flow, bytes", [
            (r["path"], r["rss_bytes_per_flow"], r["rss_bytes_per_flow_min"], r["rss_bytes_per_flow_max"])
            for r in mem_rows]))
    return panels


def make_plots(d, rows, paths, st, man, lat_rows, conn_rows, mem_rows, udp=None):
    """throughput.png and legs.png, or the same as SVG without matplotlib."""
    groups = [(n, dr) for n in st["streams"] for dr in ("up", "down")]
    panels = leg_panels(lat_rows, conn_rows, mem_rows, st, udp)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        out = []
        if rows:
            out.append(svg_plot(d, rows, paths, groups, man))
        if panels:
            out.append(svg_panels(d, panels, man))
        return out
    out = []
    if rows:
        out.append(mpl_throughput(plt, d, rows, paths, groups, st, man))
    if panels:
        fig, axes = plt.subplots(len(panels), 1, figsize=(10, 2.6 * len(panels)), squeeze=False)
        for ax, (title, bars) in zip(axes[:, 0], panels):
            xs = range(len(bars))
            ys = [b[1] or 0 for b in bars]
            lo = [(b[1] - b[2]) if b[1] is not None else 0 for b in bars]
            hi = [(b[3] - b[1]) if b[1] is not None else 0 for b in bars]
            ax.bar(xs, ys, 0.6, yerr=[lo, hi], capsize=3, color=[color(b[0]) for b in bars])
            ax.set_xticks(list(xs))
            ax.set_xticklabels([label(b[0]) for b in bars], fontsize=8)
            ax.set_title(title, fontsize=9)
            ax.grid(axis="y", alpha=0.3)
        fig.suptitle(f"median, min–max over {st['trials']} trials; {man['commit_short']}, {man['kernel']}, "
                     f"{man['date_utc'][:10]}", fontsize=10)
        fig.tight_layout()
        fig.savefig(os.path.join(d, "legs.png"), dpi=110)
        plt.close(fig)
        out.append("legs.png")
    return out


def mpl_throughput(plt, d, rows, paths, groups, st, man):
    fig, axes = plt.subplots(2, 1, figsize=(11, 7.5), sharex=True,
                             gridspec_kw={"height_ratios": [3, 2]})
    w = 0.8 / max(len(paths), 1)
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
        axes[0].bar(xs, ys, w, yerr=[lo, hi], capsize=2, label=label(p), color=color(p))
        axes[1].bar(xs, cs, w, color=color(p))
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


def esc(t):
    return str(t).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def svg_plot(d, rows, paths, groups, man):
    """Grouped bars with min–max whiskers, by hand (no matplotlib)."""
    W, Hh, left, bottom, top = 900, 420, 60, 60, 30
    top_v = max([r["max"] for r in rows if r["max"] is not None] or [1]) * 1.1
    gw = (W - left - 20) / max(len(groups), 1)
    bw = gw * 0.8 / max(len(paths), 1)
    y = lambda v: Hh - bottom - v / top_v * (Hh - bottom - top)
    s = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{Hh + 20 * len(paths)}" font-family="sans-serif" font-size="11">',
         f'<rect width="{W}" height="{Hh + 20 * len(paths)}" fill="#fff"/>']
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
                     f'height="{y(0) - y(r["median"]):.1f}" fill="{color(p)}">'
                     f'<title>{esc(label(p))} P{n} {DIRS[dr]}: {r["median"]:.1f} Gbit/s</title></rect>')
            cx = x + bw * 0.45
            s.append(f'<line x1="{cx:.1f}" x2="{cx:.1f}" y1="{y(r["min"]):.1f}" y2="{y(r["max"]):.1f}" stroke="#000"/>')
    for i, p in enumerate(paths):
        yy = Hh + 5 + 20 * i
        s.append(f'<rect x="{left}" y="{yy - 10}" width="12" height="12" fill="{color(p)}"/>'
                 f'<text x="{left + 18}" y="{yy}">{esc(label(p))}</text>')
    s.append(f'<text x="{left}" y="15">Gbit/s (median, min–max) — {esc(man["commit_short"])}, {esc(man["kernel"])}</text></svg>')
    with open(os.path.join(d, "throughput.svg"), "w") as f:
        f.write("\n".join(s))
    return "throughput.svg"


def svg_panels(d, panels, man):
    """legs.svg: one horizontal bar chart per panel (median bar, min–max
    whisker, value label), drawn by hand (no matplotlib)."""
    W, left, right, bar_h, gap, head = 900, 150, 110, 16, 6, 34
    s, y0 = [], 10
    for title, bars in panels:
        top_v = max([b[3] for b in bars if b[3] is not None] or [1]) * 1.05 or 1
        x = lambda v: left + v / top_v * (W - left - right)
        s.append(f'<text x="10" y="{y0 + 14}" font-weight="bold">{esc(title)}</text>')
        yb = y0 + head
        for i, (p, m, lo, hi) in enumerate(bars):
            yy = yb + i * (bar_h + gap)
            name = label(p)
            s.append(f'<text x="{left - 6}" y="{yy + bar_h - 4}" text-anchor="end">{esc(name)}</text>')
            if m is None:
                s.append(f'<text x="{left + 4}" y="{yy + bar_h - 4}" fill="#888">no result</text>')
                continue
            s.append(f'<rect x="{left}" y="{yy}" width="{x(m) - left:.1f}" height="{bar_h}" '
                     f'fill="{color(p)}"><title>{esc(name)}: {m:.4g}</title></rect>')
            s.append(f'<line x1="{x(lo):.1f}" x2="{x(hi):.1f}" y1="{yy + bar_h / 2:.1f}" y2="{yy + bar_h / 2:.1f}" '
                     f'stroke="#000"/><line x1="{x(lo):.1f}" x2="{x(lo):.1f}" y1="{yy + 3}" y2="{yy + bar_h - 3}" '
                     f'stroke="#000"/><line x1="{x(hi):.1f}" x2="{x(hi):.1f}" y1="{yy + 3}" y2="{yy + bar_h - 3}" '
                     f'stroke="#000"/>')
            s.append(f'<text x="{x(hi) + 6:.1f}" y="{yy + bar_h - 4}">{m:.4g}</text>')
        s.append(f'<line x1="{left}" x2="{left}" y1="{yb - 4}" y2="{yb + len(bars) * (bar_h + gap)}" stroke="#444"/>')
        y0 = yb + len(bars) * (bar_h + gap) + 16
    H = y0 + 20
    s.insert(0, f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" '
                f'font-size="11"><rect width="{W}" height="{H}" fill="#fff"/>')
    s.append(f'<text x="10" y="{H - 6}" fill="#444">median (bar), min–max over trials (whisker); '
             f'{esc(man["commit_short"])}, {esc(man["kernel"])}, {esc(man["date_utc"][:10])}</text></svg>')
    with open(os.path.join(d, "legs.svg"), "w") as f:
        f.write("\n".join(s))
    return "legs.svg"


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
    m.add_argument("--swrr", required=True)
    m.add_argument("--swconn", required=True)
    m.add_argument("--legs", default="tput")
    m.add_argument("--rr-count", type=int, default=0)
    m.add_argument("--rr-size", type=int, default=0)
    m.add_argument("--conn-seconds", type=int, default=0)
    m.add_argument("--conn-parallel", type=int, default=0)
    m.add_argument("--mem-flows", type=int, default=0)
    m.add_argument("--mem-port", type=int, default=0)
    m.add_argument("--mem-gateways", default="")
    m.add_argument("--slipway-options", default="")
    m.add_argument("--slipway-mem-options", default="")
    m.add_argument("--loss", default="")
    m.add_argument("--loss-per-mille", type=int, default=0)
    r = sub.add_parser("report")
    r.add_argument("dir")
    a = ap.parse_args()
    a.dir = os.path.abspath(a.dir)
    sys.exit(cmd_manifest(a) if a.cmd == "manifest" else cmd_report(a))


if __name__ == "__main__":
    main()

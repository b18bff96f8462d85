#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
"""bench-report.py RUN_DIR RESULT_DIR: the report of one `make bench` run.

RUN_DIR is the guest's output directory (suites/bench.sh wrote
bench-raw.tsv, bench-guest.txt and probe/; qemu-tests/bench.sh wrote
bench-host.txt and the probe's host side).  Writes RESULT_DIR/bench.json
(every run's value, the medians, the model measurement), bench.md (one table
per Ethernet MTU: ornic, rxe, siw and ornic/rxe; then the model's
microbenchmarks from RUN_DIR/ornic-bench.json, Google Benchmark's JSON output
of ornic-bench, when there, with its cost-against-count tables: message rate
against active QPs, model memory per idle object), bench.png (bandwidth
against message size, one line per stack and operation) and bench-qps.png
(the model's message rate against active QPs, when ornic-bench measured it).

Values: bandwidth points give perftest's average Gb/s, message-rate points
its MsgRate in Mpps, latency points the typical (median) latency in us.  A
run that failed or printed 0 or inf (perftest reads the TSC, which TCG
guests mark unstable) is kept in the JSON but left out of the median.
"""

import json
import math
import os
import re
import statistics
import sys

SIZES = {"2": 2, "64": 64, "4k": 4096, "64k": 65536, "1m": 1048576}
STACK_ORDER = ["ornic", "rxe", "siw"]


def point_info(name):
    """Tool, message size, QPs and unit of a point name of suites/bench.sh."""
    m = re.fullmatch(r"(write|read|send)_(bw|lat)_(\w+)", name)
    if m:
        kind = m.group(2)
        return {
            "tool": f"ib_{m.group(1)}_{kind}",
            "op": m.group(1),
            "kind": kind,
            "size": SIZES.get(m.group(3)),
            "qps": 1,
            "unit": "Gb/s" if kind == "bw" else "us",
        }
    m = re.fullmatch(r"msgrate_q(\d+)", name)
    if m:
        return {"tool": "ib_write_bw", "op": "write", "kind": "msgrate", "size": 64,
                "qps": int(m.group(1)), "unit": "Mpps"}
    return {"tool": None, "op": None, "kind": None, "size": None, "qps": None, "unit": ""}


def value_of(kind, row, seconds=None):
    """The point's figure from perftest's result row, None when unusable.

    With the measured window's length (bandwidth points run for a fixed
    time), bandwidth and message rate come from the messages completed in
    the window, which perftest counts exactly, rather than from its own
    division by TSC cycles, which under TCG now and then gives 0.
    """
    cols = row.split()
    try:
        if kind in ("bw", "msgrate") and seconds:
            # bytes iterations BW-peak BW-average MsgRate
            size, iters = int(cols[0]), int(cols[1])
            v = size * iters * 8 / seconds / 1e9 if kind == "bw" else iters / seconds / 1e6
        elif kind == "bw":
            v = float(cols[3])
        elif kind == "msgrate":
            v = float(cols[4])
        elif kind == "lat":
            # bytes iterations t_min t_max t_typical t_avg t_stdev p99 p99.9
            v = float(cols[4])
        else:
            return None
    except (IndexError, ValueError):
        return None
    if not math.isfinite(v) or v <= 0:
        return None
    return v


def read_kv(path):
    """'key value...' lines into a dict of strings (missing file: empty)."""
    out = {}
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                k, _, v = line.rstrip("\n").partition(" ")
                if k:
                    out[k] = v
    except FileNotFoundError:
        pass
    return out


def strace_summary(path):
    """Total calls and the five busiest system calls of an strace -c file."""
    calls = {}
    total = None
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                cols = line.split()
                if not cols or cols[0].startswith(("%", "-")):
                    continue
                # % time, seconds, usecs/call, calls, [errors], syscall
                if cols[-1] == "total":
                    total = int(cols[3])
                    continue
                if len(cols) >= 5 and cols[3].isdigit():
                    calls[cols[-1]] = int(cols[3])
    except FileNotFoundError:
        return None
    if total is None:
        total = sum(calls.values())
    top = sorted(calls.items(), key=lambda kv: -kv[1])[:5]
    return {"calls": total, "top": dict(top)}


def probe_report(run, window):
    """The models' CPU use and system calls during the probe point, whose
    measured window is WINDOW seconds."""
    d = os.path.join(run, "probe")
    if not os.path.isdir(d):
        return None
    out = {}
    for mode in ("cpu", "strace", "sched1", "sched3"):
        try:
            with open(os.path.join(d, f"{mode}.packets"), encoding="utf-8") as f:
                point, rc, before, after, row = (f.readline().rstrip("\n").split("\t") + [""] * 5)[:5]
        except FileNotFoundError:
            continue
        # client tx, rx, server tx, rx, then (since 2026-12) both devices'
        # MMIO work-queue doorbell writes
        b = ([int(x) for x in before.split()] + [0] * 5)[:5]
        a = ([int(x) for x in after.split()] + [0] * 5)[:5]
        d5 = [y - x for x, y in zip(b, a)]
        out[mode] = {"point": point, "exit": int(rc or 0), "row": row,
                     "client_tx_packets": d5[0], "server_tx_packets": d5[2],
                     "tx_packets": d5[0] + d5[2],
                     # the data goes one way; the other way carries ACKs
                     # (or READ requests)
                     "data_packets": max(d5[0], d5[2]),
                     "gbps": value_of("bw", row, window)}
        if len(before.split()) >= 5 and out[mode]["data_packets"]:
            out[mode]["wq_doorbells"] = d5[4]
            out[mode]["wq_doorbells_per_data_packet"] = round(d5[4] / out[mode]["data_packets"], 3)
    host = {}
    try:
        with open(os.path.join(d, "cpu.host"), encoding="utf-8") as f:
            for line in f:
                host.setdefault(line.split()[0], []).append(line.split()[1:])
    except FileNotFoundError:
        pass
    if "cpu" in out and "before" in host and "after" in host:
        tck = float(host["tck"][0][0])
        wall = float(host["wall"][0][0])
        models = {}
        for (m, u0, s0), (_, u1, s1) in zip(host["before"], host["after"]):
            user, sys_ = (int(u1) - int(u0)) / tck, (int(s1) - int(s0)) / tck
            models[m] = {"user_s": user, "system_s": sys_,
                         "cpu_percent": round(100 * (user + sys_) / wall, 1)}
        cpu = out["cpu"]
        cpu["wall_s"] = wall
        cpu["models"] = models
        account = sched_groups(os.path.join(d, "cpu-sched.host"))
        if account is not None:
            # Share of the window each group of threads ran and waited for a
            # CPU (100 % = one CPU all the time).
            cpu["threads"] = {who: {"run_percent": round(100 * g[0] / 1e9 / wall, 1),
                                    "wait_percent": round(100 * g[1] / 1e9 / wall, 1)}
                              for who, g in sorted(account[1].items())}
        total = sum(v["user_s"] + v["system_s"] for v in models.values())
        cpu["cpu_s"] = total
        if cpu["tx_packets"] > 0:
            cpu["cpu_us_per_packet"] = round(1e6 * total / cpu["tx_packets"], 2)
            cpu["cpu_us_per_data_packet"] = round(1e6 * total / cpu["data_packets"], 2)
    if "strace" in out:
        st = out["strace"]
        st["models"] = {}
        for i in range(8):
            s = strace_summary(os.path.join(d, f"strace-model{i}.txt"))
            if s is not None:
                st["models"][f"model{i}"] = s
        calls = sum(v["calls"] for v in st["models"].values())
        st["calls"] = calls
        if st["tx_packets"] > 0:
            st["calls_per_packet"] = round(calls / st["tx_packets"], 2)
            st["calls_per_data_packet"] = round(calls / st["data_packets"], 2)
    if "sched1" in out and "sched3" in out:
        out["sched"] = sched_report(d, out.pop("sched1"), out.pop("sched3"))
    return out


def sched_groups(path):
    """Wall seconds and, per group of threads (each model; QEMU's vCPUs; the
    rest of QEMU), [run ns, wait ns, timeslices] from the before and after
    schedstat lines of PATH; None when the file is missing."""
    before, after, wall = {}, {}, None
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                cols = line.split()
                if cols[:1] == ["wall"]:
                    wall = float(cols[1])
                elif len(cols) == 7 and cols[0] in ("before", "after"):
                    snap = before if cols[0] == "before" else after
                    snap[(cols[1], cols[2])] = (cols[3], [int(x) for x in cols[4:7]])
    except FileNotFoundError:
        return None
    groups = {}
    for key, (comm, a) in after.items():
        b = before.get(key, (comm, [0, 0, 0]))[1]
        if any(y < x for x, y in zip(b, a)):
            b = [0, 0, 0]  # a thread that ended and a new one with its number
        who = key[0]
        if who == "qemu":
            # QEMU's TCG vCPU threads are named "CPU n/TCG"; the rest is the
            # main loop (which carries the vfio-user client) and helpers.
            who = "qemu vCPUs" if comm.startswith("CPU_") else "qemu other"
        g = groups.setdefault(who, [0, 0, 0])
        for i in range(3):
            g[i] += a[i] - b[i]
    return wall, groups


def sched_report(d, short, long_):
    """Per one-way message of a latency point run twice (SHORT, then LONG
    with more iterations): the difference of the two runs' scheduler
    accounts, so that starting the processes and connecting cancel out."""
    res = {"point": long_["point"], "typical_us": value_of("lat", long_["row"]),
           "typical_us_short": value_of("lat", short["row"])}
    accounts = [sched_groups(os.path.join(d, f"{m}.host")) for m in ("sched1", "sched3")]
    iters = []
    for run in (short, long_):
        cols = run["row"].split()
        iters.append(int(cols[1]) if len(cols) > 1 and cols[1].isdigit() else 0)
    if None in accounts or iters[1] <= iters[0]:
        return res
    (wall1, g1), (wall3, g3) = accounts
    messages = 2 * (iters[1] - iters[0])  # a ping and a pong per iteration
    res.update({"iterations": iters, "extra_messages": messages,
                "extra_wall_s": round(wall3 - wall1, 3), "groups": {}})
    for who in sorted(g3):
        a, b = g3[who], g1.get(who, [0, 0, 0])
        run_ns, wait_ns, slices = (x - y for x, y in zip(a, b))
        res["groups"][who] = {"run_us_per_message": round(run_ns / 1e3 / messages, 2),
                              "wait_us_per_message": round(wait_ns / 1e3 / messages, 2),
                              "timeslices_per_message": round(slices / messages, 2)}
    return res


def micro_report(run):
    """ornic-bench's results (Google Benchmark JSON), one entry per benchmark."""
    try:
        with open(os.path.join(run, "ornic-bench.json"), encoding="utf-8") as f:
            data = json.load(f)
    except (FileNotFoundError, ValueError):
        return None
    ctx = data.get("context", {})
    out = {"context": {k: ctx.get(k) for k in ("date", "host_name", "num_cpus", "mhz_per_cpu",
                                                 "load_avg", "library_build_type")},
           "benchmarks": []}
    skip = {"name", "family_index", "per_family_instance_index", "run_name", "run_type",
            "repetitions", "repetition_index", "threads", "iterations", "real_time", "cpu_time",
            "time_unit", "bytes_per_second", "items_per_second", "error_occurred", "error_message",
            "aggregate_name", "aggregate_unit", "label"}
    for b in data.get("benchmarks", []):
        if b.get("run_type", "iteration") != "iteration":
            continue
        out["benchmarks"].append({
            "name": b.get("name"),
            "error": b.get("error_message") if b.get("error_occurred") else None,
            "iterations": b.get("iterations"),
            "real_time": b.get("real_time"), "cpu_time": b.get("cpu_time"),
            "time_unit": b.get("time_unit", "ns"),
            "items_per_second": b.get("items_per_second"),
            "bytes_per_second": b.get("bytes_per_second"),
            "counters": {k: v for k, v in b.items() if k not in skip and isinstance(v, (int, float))},
        })
    return out


def si(v, unit):
    """v with an SI prefix (k, M, G), three significant digits."""
    if v is None:
        return "-"
    for factor, prefix in ((1e9, "G"), (1e6, "M"), (1e3, "k"), (1, "")):
        if abs(v) >= factor:
            return fmt(v / factor, prefix + unit)
    return fmt(v, unit) if v else f"0 {unit}"


def micro_markdown(micro):
    ctx = micro["context"]
    load = ctx.get("load_avg")
    if isinstance(load, list):
        load = " ".join(f"{x:.1f}" for x in load)
    lines = [f"Model microbenchmarks (ornic-bench, release build, on the host before the guest: "
             f"{ctx.get('num_cpus', '?')} CPUs, load {load or '?'}); per CPU second "
             f"of the benchmark thread, so independent of the load only as far as caches allow.",
             "",
             "| benchmark | CPU time per iteration | items/s | bytes/s | counters |",
             "| --- | --- | --- | --- | --- |"]
    for b in micro["benchmarks"]:
        if b["error"]:
            lines.append(f"| {b['name']} | ERROR: {b['error']} | - | - | - |")
            continue
        t = b["cpu_time"]
        unit = b["time_unit"]
        counters = ", ".join(f"{k} {v:g}" for k, v in sorted(b["counters"].items()))
        lines.append(f"| {b['name']} | {fmt(t, unit) if t else '-'} | {si(b['items_per_second'], '/s')} | "
                     f"{si(b['bytes_per_second'], 'B/s')} | {counters or '-'} |")
    lines.append("")
    return "\n".join(lines)


# Their names, with any suffix Google Benchmark adds (/iterations:1, /repeats:3).
ACTIVE_QPS = re.compile(r"BM_RcWriteMsgRateActiveQps/qps:(\d+)(/|$)")
IDLE_MEMORY = re.compile(r"BM_IdleObjectMemory/objects:(\d+)(/|$)")


def count_report(micro):
    """Cost against count, from ornic-bench's results: the message rate with N QP pairs all
    active (CPU time per message, relative to N = 1) and the model's heap per idle object."""
    if not micro:
        return None
    rates, memory = [], []
    for b in micro["benchmarks"]:
        name = b["name"] or ""
        active, idle = ACTIVE_QPS.match(name), IDLE_MEMORY.match(name)
        if active:
            rate = b["items_per_second"] if not b["error"] else None
            rates.append({"qps": int(active.group(1)), "error": b["error"],
                          "msgs_per_s": rate, "ns_per_msg": 1e9 / rate if rate else None,
                          "pkts_per_msg": b["counters"].get("pkts_per_msg"),
                          "acks_per_msg": b["counters"].get("acks_per_msg"),
                          "setup_us_per_pair": b["counters"].get("setup_us_per_pair")})
        elif idle:
            memory.append({"objects": int(idle.group(1)), "error": b["error"],
                           **{k: b["counters"].get(f"bytes_per_{k}") for k in ("qp", "cq", "mr", "ah")},
                           "churn": b["counters"].get("churn_bytes_per_qp")})
    # Repetitions (--benchmark_repetitions) give a point several rows: its median.
    by_qps = {}
    for r in rates:
        by_qps.setdefault(r["qps"], []).append(r)
    rates = []
    for qps in sorted(by_qps):
        runs = by_qps[qps]
        good = sorted((r for r in runs if r["msgs_per_s"]), key=lambda r: r["msgs_per_s"])
        rates.append(good[len(good) // 2] if good else runs[0])
        rates[-1]["runs"] = len(runs)
    memory.sort(key=lambda r: r["objects"])
    base = next((r["ns_per_msg"] for r in rates if r["qps"] == 1 and r["ns_per_msg"]), None)
    for r in rates:
        r["vs_1_qp"] = r["ns_per_msg"] / base if base and r["ns_per_msg"] else None
    if not rates and not memory:
        return None
    return {"active_qps": rates, "idle_memory": memory}


def count_markdown(count):
    lines = []
    guest = count.get("guest_msgrate") or {}
    if guest:
        stacks = sorted(guest)
        qps = sorted({q for c in guest.values() for q, _ in c})
        lines += ["Message rate against active QPs in the guest (perftest ib_write_bw -s 64 -q N "
                  "over rdma_cm, every WRITE signaled, median of the runs; wall time under TCG, so "
                  "the guest's CPUs, not the device, bound it).",
                  "",
                  "| active QPs | " + " | ".join(f"{k}, Mpps" for k in stacks) + " |",
                  "| --- |" + " --- |" * len(stacks)]
        for q in qps:
            cells = []
            for k in stacks:
                v = dict(guest[k]).get(q)
                cells.append(f"{v:.4f}" if v else "-")
            lines.append(f"| {q} | " + " | ".join(cells) + " |")
        lines.append("")
    if count["active_qps"]:
        lines += ["Message rate against active QPs (ornic-bench, release build: an RC pair on an "
                  "in-memory wire with N QP pairs, each posting its share of every batch of 64 B "
                  "RDMA WRITEs; per CPU second of the benchmark thread). Flat CPU time per message "
                  "means the model touches only the QPs with work; up to 1024 QPs the ACKs per "
                  "message grow (each QP's burst is ACKed), from there only the number of QPs does. "
                  "Set-up: the wall time of building the rig (two NICs and N connected QP pairs) "
                  "over N.",
                  "",
                  "| active QPs | messages/s | CPU per message | vs 1 QP | packets/msg | ACKs/msg "
                  "| rig set-up / N |",
                  "| --- | --- | --- | --- | --- | --- | --- |"]
        for r in count["active_qps"]:
            if r["error"]:
                lines.append(f"| {r['qps']} | ERROR: {r['error']} | - | - | - | - | - |")
                continue
            ratio = f"{r['vs_1_qp']:.2f}" if r["vs_1_qp"] else "-"
            pkts = f"{r['pkts_per_msg']:.2f}" if r["pkts_per_msg"] is not None else "-"
            acks = f"{r['acks_per_msg']:.2f}" if r["acks_per_msg"] is not None else "-"
            setup = fmt(r["setup_us_per_pair"], "us") if r["setup_us_per_pair"] else "-"
            ns = f"{r['ns_per_msg']:.0f} ns" if r["ns_per_msg"] else "-"
            lines.append(f"| {r['qps']} | {si(r['msgs_per_s'], '/s')} | {ns} | {ratio} | {pkts} | "
                         f"{acks} | {setup} |")
        lines.append("")
    if count["idle_memory"]:
        lines += ["Model memory per idle object (ornic-bench, release build: N of each created "
                  "through the admin queue, QPs in RTS each on a CQ of its own; the growth of the "
                  "model's heap, mallinfo2, divided by N; guest rings not counted). Churn: what the "
                  "heap keeps of each QP created, taken to RTS and destroyed, N (at most 2000) in a row.",
                  "",
                  "| objects | bytes per QP | bytes per CQ | bytes per MR | bytes per AH | churn, bytes per QP |",
                  "| --- | --- | --- | --- | --- | --- |"]
        for m in count["idle_memory"]:
            if m["error"]:
                lines.append(f"| {m['objects']} | ERROR: {m['error']} | - | - | - | - |")
                continue
            cells = " | ".join(f"{m[k]:.0f}" if m[k] is not None else "-"
                               for k in ("qp", "cq", "mr", "ah", "churn"))
            lines.append(f"| {m['objects']} | {cells} |")
        lines.append("")
    return "\n".join(lines)


def plot_count(count, path):
    """Message rate against the number of active QPs (log-log): the model alone (ornic-bench,
    per CPU second) and each stack in the guest (perftest -q, per wall second), as measured."""
    pts = [(r["qps"], r["msgs_per_s"]) for r in (count or {}).get("active_qps", []) if r["msgs_per_s"]]
    guest = (count or {}).get("guest_msgrate", {})
    if not pts and not guest:
        return
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4.5))
    ys = []
    if pts:
        ax.plot([x for x, _ in pts], [y / 1e6 for _, y in pts], "-", marker="o", color="tab:blue",
                label="ornic model alone, per CPU second")
        ys += [y / 1e6 for _, y in pts]
    colours = {"ornic": "tab:green", "rxe": "tab:red", "siw": "tab:purple"}
    for stack, curve in sorted(guest.items()):
        ax.plot([x for x, _ in curve], [y for _, y in curve], "--", marker="s",
                color=colours.get(stack, "tab:gray"), label=f"{stack} in the guest (perftest -q)")
        ys += [y for _, y in curve]
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_ylim(min(ys) / 4, max(ys) * 4)
    ax.set_xlabel("active QP pairs")
    ax.set_ylabel("64 B RDMA WRITEs per second (M)")
    ax.set_title("Message rate against active QPs")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(loc="lower left", fontsize="small", frameon=False)
    fig.savefig(path, dpi=100, bbox_inches="tight")


def read_floor(path):
    """ornic-wake-floor's line ("wake_floor median_us M p99_us P ..."), or None."""
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                w = line.split()
                if w and w[0] == "wake_floor":
                    return {w[i]: float(w[i + 1]) for i in range(1, len(w) - 1, 2)}
    except OSError:
        pass
    return None


def event_report(run):
    """ib_send_lat polled and event-driven per stack: every run's typical latency and the medians."""
    path = os.path.join(run, "bench-event.tsv")
    if not os.path.exists(path):
        return None
    stacks = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            cols = line.rstrip("\n").split("\t")
            if len(cols) < 5:
                continue
            stack, mode, rep, rc = cols[:4]
            row = " ".join(" ".join(cols[4:]).split())
            v = value_of("lat", row) if rc == "0" else None
            runs = stacks.setdefault(stack, {}).setdefault(mode, [])
            runs.append({"rep": int(rep), "exit": int(rc), "row": row, "value": v})
    out = {}
    costs = {}
    cpath = os.path.join(run, "bench-event-counters.tsv")
    if os.path.exists(cpath):
        with open(cpath, encoding="utf-8") as f:
            for line in f:
                cols = line.rstrip("\n").split("\t")
                if len(cols) < 5:
                    continue
                try:
                    iters = int(cols[2])
                    before, after = [int(x) for x in cols[3].split()], [int(x) for x in cols[4].split()]
                except ValueError:
                    continue
                # Two messages an iteration: the ping and the pong.
                per = [(a - b) / (2 * iters) for a, b in zip(after, before)]
                costs.setdefault(cols[0], []).append(
                    dict(zip(("db_writes", "db_wq_writes", "eqes", "interrupts"), per)))
    for stack, modes in stacks.items():
        out[stack] = {}
        for mode, runs in modes.items():
            vals = [r["value"] for r in runs if r["value"]]
            out[stack][mode] = {"runs": runs, "valid": len(vals),
                                "median": statistics.median(vals) if vals else None}
            if stack == "ornic" and costs.get(mode):
                c = costs[mode]
                out[stack][mode]["per_message"] = {k: statistics.median(x[k] for x in c) for k in c[0]}
    return out


def cmtime_steps(path):
    """cmtime's per-step tables: {"qp_conn" (connections with QPs) or "cm_conn" (rdma_cm alone):
    {step: {column: value}}}."""
    tables, cols, cur = {}, None, None
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                w = line.split()
                if len(w) == 2 and w[0] in ("qp_conn", "cm_conn"):
                    cur = tables.setdefault(w[0], {})
                    continue
                if line.startswith("step"):
                    cols = w[1:]
                    continue
                if cur is None or cols is None:
                    continue
                name, vals = [], []
                for x in w:
                    try:
                        vals.append(float(x))
                    except ValueError:
                        if vals:
                            break
                        name.append(x)
                if name and len(vals) == len(cols):
                    cur[" ".join(name)] = dict(zip(cols, vals))
    except OSError:
        pass
    return tables


def cm_report(run):
    """cmtime and ucmatose per stack and connection count: wall time, connections/s, cmtime's steps."""
    path = os.path.join(run, "bench-cm.tsv")
    if not os.path.exists(path):
        return None
    rows = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            cols = line.rstrip("\n").split("\t")
            if len(cols) < 6:
                continue
            tool, stack, n, rc, wall, log = cols[:6]
            r = {"tool": tool, "stack": stack, "connections": int(n), "exit": int(rc),
                 "wall_s": float(wall or 0), "log": log}
            r["conn_per_s"] = r["connections"] / r["wall_s"] if rc == "0" and r["wall_s"] > 0 else None
            if tool == "cmtime":
                r["tables"] = cmtime_steps(os.path.join(run, log))
                r["steps"] = r["tables"].get("qp_conn", {})
                for table, key in (("qp_conn", "connect_per_s"), ("cm_conn", "cm_connect_per_s")):
                    full = r["tables"].get(table, {}).get("full connect", {}).get("total(us)")
                    if rc == "0" and full:
                        r[key] = r["connections"] / (full / 1e6)
            rows.append(r)
    return rows


def num(v, digits=3):
    if v is None:
        return "-"
    return f"{v:.0f}" if abs(v) >= 10 ** digits else f"{v:.{digits}g}"


def usec(v):
    return "-" if v is None else f"{v:.0f}"


def latcm_markdown(report):
    """The wake-up floor, event-driven against polled latency and the connection rates."""
    lines = []
    fl = report.get("floor") or {}
    g, h = fl.get("guest"), fl.get("host")
    if g or h:
        lines.append("Wake-up floor (ornic-wake-floor: two processes ping-ponging over eventfds, "
                     "blocking reads; one-way, median / p99):")
        lines.append("")
        lines.append("| | median us | p99 us |")
        lines.append("| --- | --- | --- |")
        for who, f in (("host", h), ("guest (TCG)", g)):
            if f:
                lines.append(f"| {who} | {num(f.get('median_us'))} | {num(f.get('p99_us'))} |")
        lines.append("")
    ev = report.get("event")
    if ev:
        unit = g.get("median_us") if g else None
        lines.append("ib_send_lat 2 B, RC, typical latency, median of runs; polled against -e "
                     "(sleeping on CQ events)" + (f"; x floor: in units of the guest's floor "
                                                  f"({num(unit)} us)" if unit else "") + ":")
        lines.append("")
        lines.append("| stack | polled us | event us | polled x floor | event x floor | event - polled us |")
        lines.append("| --- | --- | --- | --- | --- | --- |")
        for k in [k for k in STACK_ORDER if k in ev] + sorted(set(ev) - set(STACK_ORDER)):
            p = ev[k].get("poll", {}).get("median")
            e = ev[k].get("event", {}).get("median")
            lines.append(f"| {k} | {num(p)} | {num(e)} | {num(p / unit if p and unit else None)} | "
                         f"{num(e / unit if e and unit else None)} | {num(e - p if e and p else None)} |")
        o, r = ev.get("ornic", {}), ev.get("rxe", {})
        ratios = []
        for mode in ("poll", "event"):
            a, b = o.get(mode, {}).get("median"), r.get(mode, {}).get("median")
            ratios.append(num(a / b if a and b else None))
        lines.append(f"| ornic/rxe | {ratios[0]} | {ratios[1]} | | | |")
        lines.append("")
        pm = {m: o.get(m, {}).get("per_message") for m in ("poll", "event")}
        if any(pm.values()):
            lines.append("ornic, both devices, per one-way message (device counters, medians of runs; "
                         "connection set-up included):")
            lines.append("")
            lines.append("| | doorbell writes | of them WQ doorbells | EQEs | interrupts |")
            lines.append("| --- | --- | --- | --- | --- |")
            for m in ("poll", "event"):
                if pm[m]:
                    lines.append(f"| {m} | " + " | ".join(f"{pm[m][k]:.2f}" for k in
                                                          ("db_writes", "db_wq_writes", "eqes", "interrupts"))
                                 + " |")
            lines.append("")
    cm = report.get("cm")
    if cm:
        lines.append("rdma_cm connection setup: connections/s over the client's wall time (process "
                     "start, warm-up and teardown included), and cmtime's own 'full connect' time "
                     "(all N connected, concurrently) with QPs and without:")
        lines.append("")
        lines.append("| tool | stack | connections | exit | wall s | conn/s (wall) | conn/s (cmtime, QPs) "
                     "| conn/s (cmtime, no QPs) |")
        lines.append("| --- | --- | --- | --- | --- | --- | --- | --- |")
        for r in cm:
            lines.append(f"| {r['tool']} | {r['stack']} | {r['connections']} | {r['exit']} | "
                         f"{r['wall_s']:.2f} | {num(r['conn_per_s'])} | {num(r.get('connect_per_s'))} | "
                         f"{num(r.get('cm_connect_per_s'))} |")
        lines.append("")
        steps = [r for r in cm if r["tool"] == "cmtime" and r.get("steps")]
        if steps:
            names = list(steps[0]["steps"])
            lines.append("cmtime's steps with QPs, us per connection (client side; 'full connect' is the "
                         "total for all N):")
            lines.append("")
            lines.append("| step | " + " | ".join(f"{r['stack']} c{r['connections']}" for r in steps) + " |")
            lines.append("| --- |" + " --- |" * len(steps))
            for n in names:
                col = "total(us)" if n == "full connect" else "us/conn"
                lines.append(f"| {n} | " + " | ".join(usec(r["steps"].get(n, {}).get(col))
                                                     for r in steps) + " |")
            lines.append("")
    return "\n".join(lines)


def fmt(v, unit):
    if v is None:
        return "-"
    if unit == "us":
        return f"{v:.0f} us" if v >= 100 else f"{v:.1f} us"
    # three significant digits, never in exponent notation
    decimals = max(0, 2 - math.floor(math.log10(v)))
    return f"{v:.{decimals}f} {unit}"


def cell(s, unit):
    """A table cell: the median, and how many runs it is of when some failed."""
    if not s:
        return "-"
    text = fmt(s.get("median"), unit)
    if s["valid"] < len(s["runs"]):
        text += f" ({s['valid']}/{len(s['runs'])})"
    return text


def markdown(report):
    lines = []
    meta, cfg = report["meta"], report["config"]
    stacks = report["stacks"]
    lines.append(f"`make bench` of {meta.get('date', '?')} (commit {meta.get('commit', '?')}): "
                 f"{cfg['reps']} run(s) per point, median; bandwidth points {cfg['seconds']} s each; "
                 f"guest kernel {meta.get('guest_kernel', '?')}, {meta.get('guest_cpus', '?')} vCPUs (TCG), "
                 f"perftest {meta.get('perftest', '?')}, every tool connected by rdma_cm (-R); "
                 f"host load {meta.get('host_load', '?')}; wall time {meta.get('wall_seconds', '?')} s.")
    lines.append("")
    for mtu in report["mtus"]:
        pts = [p for p in report["points"] if p["mtu"] == mtu]
        if not pts:
            continue
        amtu = {k: next((p["stacks"][k]["active_mtu"] for p in pts if p["stacks"].get(k, {}).get("active_mtu")), "?")
                for k in stacks}
        lines.append(f"Ethernet MTU {mtu} (RoCE active MTU: "
                     + ", ".join(f"{k} {amtu[k]}" for k in stacks) + ")")
        lines.append("")
        lines.append("| | " + " | ".join(stacks) + " | ornic/rxe |")
        lines.append("| --- |" + " --- |" * (len(stacks) + 1))
        for p in pts:
            cells = [cell(p["stacks"].get(k), p["unit"]) for k in stacks]
            ratio = p.get("ornic_rxe")
            lines.append(f"| {p['label']} | " + " | ".join(cells) + f" | {fmt(ratio, '').strip()} |" if ratio
                         else f"| {p['label']} | " + " | ".join(cells) + " | - |")
        lines.append("")
    pr = report.get("probe") or {}
    if "cpu" in pr and "models" in pr["cpu"]:
        c = pr["cpu"]
        per = ", ".join(f"{m} {v['cpu_percent']} % ({v['user_s']:.2f} s user, {v['system_s']:.2f} s system)"
                        for m, v in c["models"].items())
        lines.append(f"Models' CPU during {c['point']} on ornic ({c['wall_s']:.1f} s from the server's "
                     f"start to the client's end, {fmt(c['gbps'], 'Gb/s')}; {c['tx_packets']} packets sent by "
                     f"the two NICs, {c['data_packets']} of them data): {per}; "
                     f"{c.get('cpu_us_per_packet', '-')} us of model CPU per packet sent, "
                     f"{c.get('cpu_us_per_data_packet', '-')} per data packet; "
                     f"{c.get('wq_doorbells', '-')} MMIO work-queue doorbells, "
                     f"{c.get('wq_doorbells_per_data_packet', '-')} per data packet."
                     + (" Threads (100 % = a CPU all the time): " + "; ".join(
                         f"{who} ran {t['run_percent']} %, waited for a CPU {t['wait_percent']} %"
                         for who, t in c["threads"].items()) + "." if c.get("threads") else ""))
        lines.append("")
    if "strace" in pr and pr["strace"].get("models"):
        s = pr["strace"]
        top = {}
        for v in s["models"].values():
            for k, n in v["top"].items():
                top[k] = top.get(k, 0) + n
        busiest = ", ".join(f"{k} {n}" for k, n in sorted(top.items(), key=lambda kv: -kv[1])[:5])
        lines.append(f"System calls of both models during {s['point']} on ornic under strace -c -f "
                     f"({fmt(s['gbps'], 'Gb/s')} while traced): {s['calls']} calls for {s['tx_packets']} "
                     f"packets sent = {s.get('calls_per_packet', '-')} per packet, "
                     f"{s.get('calls_per_data_packet', '-')} per data packet (busiest: {busiest}).")
        lines.append("")
    if "sched" in pr and pr["sched"].get("groups"):
        s = pr["sched"]
        per = "; ".join(f"{who} ran {g['run_us_per_message']} us, waited {g['wait_us_per_message']} us "
                        f"for a CPU, was scheduled {g['timeslices_per_message']} times"
                        for who, g in s["groups"].items())
        lines.append(f"Where {s['point']}'s time goes on ornic: two runs of {s['iterations'][0]} and "
                     f"{s['iterations'][1]} iterations (typical {fmt(s['typical_us_short'], 'us')} and "
                     f"{fmt(s['typical_us'], 'us')} one way); the difference of the threads' "
                     f"/proc/.../schedstat between the two, {s['extra_wall_s']} s of wall time, divided by "
                     f"the {s['extra_messages']} extra one-way messages: {per}.")
        lines.append("")
    if report.get("micro"):
        lines.append(micro_markdown(report["micro"]))
    if report.get("count"):
        lines.append(count_markdown(report["count"]))
    extra = latcm_markdown(report)
    if extra:
        lines.append(extra)
    return "\n".join(lines)


def plot(report, path):
    if not report["mtus"]:
        return  # no perftest matrix in this run: nothing to draw
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    mtus = report["mtus"]
    fig, axes = plt.subplots(1, len(mtus), figsize=(6 * len(mtus), 4.5), squeeze=False, sharey=True)
    colors = {"ornic": "tab:blue", "rxe": "tab:orange", "siw": "tab:green"}
    styles = {"write": ("-", "o"), "read": ("--", "s"), "send": (":", "^")}
    drawn = False
    for ax, mtu in zip(axes[0], mtus):
        for k in report["stacks"]:
            for op in ("write", "read", "send"):
                pts = sorted((p["size"], p["stacks"][k]["median"]) for p in report["points"]
                             if p["mtu"] == mtu and p["kind"] == "bw" and p["op"] == op
                             and p["stacks"].get(k, {}).get("median"))
                if not pts:
                    continue
                ax.plot([x for x, _ in pts], [y for _, y in pts], styles[op][0], marker=styles[op][1],
                        color=colors.get(k), label=f"{k} {op}")
                drawn = True
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("message size (bytes)")
        ax.set_title(f"Ethernet MTU {mtu}")
        ax.grid(True, which="both", alpha=0.3)
    axes[0][0].set_ylabel("bandwidth (Gb/s, median)")
    fig.suptitle("perftest bandwidth per stack (TCG guest; compare ratios, not absolutes)")
    fig.tight_layout(rect=(0, 0.16 if drawn else 0, 1, 1))
    if drawn:
        legend = {}
        for ax in axes[0]:
            for h, lab in zip(*ax.get_legend_handles_labels()):
                legend.setdefault(lab, h)
        # One column per stack, so a one-MTU figure keeps the legend inside.
        fig.legend(list(legend.values()), list(legend.keys()), loc="lower center",
                   ncol=max(1, len(report["stacks"])), fontsize="small", frameon=False)
    # The box drawn around what is there: the title and legend are never cut.
    fig.savefig(path, dpi=100, bbox_inches="tight")


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: bench-report.py RUN_DIR RESULT_DIR")
    run, res = sys.argv[1], sys.argv[2]
    host = read_kv(os.path.join(run, "bench-host.txt"))
    guest = read_kv(os.path.join(run, "bench-guest.txt"))
    seconds = int(guest.get("seconds") or host.get("BENCH_SECONDS") or 2)
    points = {}
    order = []
    with open(os.path.join(run, "bench-raw.tsv"), encoding="utf-8") as f:
        for line in f:
            cols = line.rstrip("\n").split("\t")
            if len(cols) < 7:
                continue
            stack, mtu, name, rep, rc, amtu = cols[:6]
            # perftest's row may hold tabs of its own (older runs wrote it
            # unsqueezed); the attempts are the last column when there.
            attempts = 1
            if len(cols) > 7 and cols[-1].isdigit():
                attempts = int(cols.pop())
            row = " ".join(" ".join(cols[6:]).split())
            key = (int(mtu), name)
            if key not in points:
                info = point_info(name)
                points[key] = {"mtu": int(mtu), "point": name, "label": label(name, info), **info,
                               "stacks": {}}
                order.append(key)
            p = points[key]
            s = p["stacks"].setdefault(stack, {"runs": [], "active_mtu": amtu})
            s["runs"].append({"rep": int(rep), "exit": int(rc), "row": row,
                              "attempts": attempts,
                              "perftest_value": value_of(p["kind"], row),
                              "value": value_of(p["kind"], row, seconds) if rc == "0" else None})
    stacks_seen = {k for p in points.values() for k in p["stacks"]}
    stacks = [k for k in STACK_ORDER if k in stacks_seen] + sorted(stacks_seen - set(STACK_ORDER))
    for p in points.values():
        for s in p["stacks"].values():
            vals = [r["value"] for r in s["runs"] if r["value"] is not None]
            s["valid"] = len(vals)
            s["median"] = statistics.median(vals) if vals else None
        o = p["stacks"].get("ornic", {}).get("median")
        r = p["stacks"].get("rxe", {}).get("median")
        p["ornic_rxe"] = o / r if o and r else None
    report = {
        "meta": {
            "date": host.get("date"), "commit": host.get("commit"),
            "wall_seconds": int(host["wall_seconds"]) if host.get("wall_seconds") else None,
            "host_cpus": host.get("host_cpus"), "host_load": host.get("host_load"),
            "host_kernel": host.get("host_kernel"), "guest_kernel": guest.get("kernel"),
            "guest_cpus": guest.get("cpus"), "perftest": guest.get("perftest"),
        },
        "config": {
            "reps": int(guest.get("reps") or host.get("BENCH_REPS") or 3), "seconds": seconds,
            "lat_iters": int(host.get("BENCH_LAT_ITERS") or 300),
            "points": host.get("BENCH_POINTS") or "all", "rdma_cm": True,
        },
        "stacks": stacks,
        "mtus": sorted({p["mtu"] for p in points.values()}),
        "points": [points[k] for k in order],
        "probe": probe_report(run, int(host.get("BENCH_PROBE_SECONDS") or 10) - 2),
        "micro": micro_report(run),
        "floor": {"host": read_floor(os.path.join(run, "bench-floor-host.txt")),
                  "guest": read_floor(os.path.join(run, "bench-floor.txt"))},
        "event": event_report(run),
        "cm": cm_report(run),
    }
    count = count_report(report["micro"]) or {"active_qps": [], "idle_memory": []}
    count["guest_msgrate"] = guest_msgrate(report["points"])
    report["count"] = count if any(count.values()) else None
    os.makedirs(res, exist_ok=True)
    with open(os.path.join(res, "bench.json"), "w", encoding="utf-8") as f:
        json.dump(report, f, indent=1)
        f.write("\n")
    with open(os.path.join(res, "bench.md"), "w", encoding="utf-8") as f:
        f.write(markdown(report))
    plot(report, os.path.join(res, "bench.png"))
    plot_count(report["count"], os.path.join(res, "bench-qps.png"))


def guest_msgrate(points):
    """Each stack's perftest message rate against its QPs (-q), at the first MTU measured:
    {stack: [(qps, Mpps), ...]}, medians only."""
    mtus = sorted({p["mtu"] for p in points if p["kind"] == "msgrate"})
    curves = {}
    for p in points:
        if p["kind"] != "msgrate" or not mtus or p["mtu"] != mtus[0]:
            continue
        for stack, s in p["stacks"].items():
            if s.get("median"):
                curves.setdefault(stack, []).append((p["qps"], s["median"]))
    return {k: sorted(v) for k, v in curves.items()}


def label(name, info):
    """The table's row name of a point."""
    size = info.get("size")
    if info["kind"] == "msgrate":
        return f"message rate 64 B, {info['qps']} QP{'s' if info['qps'] > 1 else ''} (ib_write_bw)"
    if size is None:
        return name
    text = f"{size // 1048576} MiB" if size >= 1048576 else (f"{size // 1024} KiB" if size >= 1024 else f"{size} B")
    return f"{info['tool']} {text}" + (" (typical)" if info["kind"] == "lat" else "")


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""The comparison table: ctformer's time, GFLOP/s and share of the FMA peak for each workload and
thread count, and its speed-up over each peer measured in the same run (peer time / ctformer time).
Reads Google Benchmark JSON files (compare_bench's, pytorch_peer.py's); writes a Markdown table to
stdout and the same rows as CSV and JSON.
    bench/report.py compare.json pytorch.json --csv table.csv --json table.json [--readme README.md]
With --readme, the report also replaces the file's block <!-- table BLOCK: begin --> ... end -->.
"""
import argparse
import csv
import datetime
import json
import os
import re

PEERS = {"eigen": "libeigen3-dev", "onednn": "libdnnl-dev", "pytorch": "python3-torch"}
FORMULAS = """FLOPs (dense; a causal run is credited with the full square):
  mha  2*B*L*d*4d (Q, K, V, output projections) + 4*B*L^2*d (scores, P.V)
  enc  mha + 4*B*L*d*d_ff (feed-forward); enc6 six times enc
  *_bf16: the same model in bf16 (weights and GEMM inputs); x fp32 is its speed-up over ctformer's fp32
% of peak: GFLOP/s over the FMA peak of as many threads, measured in the same run; for a bf16 row,
  over the peak of the unit its GEMMs ran on (AVX512-BF16's vdpbf16ps, one core's times the threads)"""


def load(paths):
    times, gflops, context, labels, errors = {}, {}, {}, {}, {}
    for path in paths:
        with open(path) as f:
            data = json.load(f)
        context.update(data.get("context", {}))
        for b in data.get("benchmarks", []):
            if b.get("run_type") == "aggregate" and b.get("aggregate_name") != "median":
                continue
            name = re.sub(r"(/real_time)?(_median)?$", "", b["name"])
            scale = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}[b.get("time_unit", "ns")]
            times[name] = b["real_time"] * scale
            if b.get("label"):
                labels[name] = b["label"]
            if "GFLOP/s" in b:
                gflops[name] = b["GFLOP/s"] / 1e9
            if "max_err" in b:
                errors[name.rsplit("/", 1)[0]] = (b["max_err"], b["max_abs"])
    context["targets"] = labels
    context["errors"] = errors
    return times, gflops, context


def peak_of(gflops, threads, bf16=False):
    """The FMA peak of `threads` cores measured in the run, else `threads` times one core's; for bf16,
    the vdpbf16ps peak where the CPU has it (its GEMMs ran there, the label says), one core's times
    the threads."""
    dot = gflops.get("peak/bf16_dot/threads:1")
    if bf16 and dot:
        return dot * threads
    one = gflops.get("peak/fma/threads:1")
    return gflops.get(f"peak/fma/threads:{threads}", one * threads if one else None)


def rows(times, gflops):
    for name in sorted(n for n in times if n.startswith("ctformer/")):
        _, what, workload, threads = name.split("/")
        t = int(threads.split(":")[1])
        peak = peak_of(gflops, t, what.endswith("_bf16"))
        row = {"workload": workload, "model": what, "threads": t, "ctformer_ms": round(times[name], 4),
               "gflops": round(gflops.get(name, 0), 1),
               "percent_of_peak": round(100 * gflops[name] / peak, 1) if peak and name in gflops else None}
        fp32 = times.get(f"ctformer/{what.removesuffix('_bf16')}/{workload}/{threads}") if what.endswith("_bf16") else None
        row["speedup_vs_fp32"] = round(fp32 / times[name], 2) if fp32 else None
        for peer in PEERS:
            other = times.get(f"{peer}/{what}/{workload}/{threads}")
            row[f"speedup_vs_{peer}"] = round(other / times[name], 2) if other else None
        yield row


def report(table, gflops, context):
    peak = gflops.get("peak/fma/threads:1")
    targets = context["targets"]
    lines = [f"FMA peak, one core: {peak:.1f} GFLOP/s ({targets.get('peak/fma/threads:1', '?')})" if peak
             else "FMA peak: not measured"]
    for name in sorted(n for n in gflops if n.startswith("peak/fma/") and n != "peak/fma/threads:1"):
        lines.append(f"FMA peak, {name.split(':')[1]} threads: {gflops[name]:.1f} GFLOP/s")
    dot = gflops.get("peak/bf16_dot/threads:1")
    lines.append(f"vdpbf16ps peak, one core: {dot:.1f} GFLOP/s" if dot else "vdpbf16ps: not on this CPU (bf16 rows widened to fp32)")
    used = sorted({t for n, t in targets.items() if n.startswith("ctformer/")})
    lines.append(f"ctformer: Highway target {', '.join(used) or '?'}")
    for peer, package in PEERS.items():
        lines.append(f"peer {peer}: {context.get('peer ' + peer, 'missing (install ' + package + ')')}")
    head = ["workload", "model", "threads", "ctformer ms", "GFLOP/s", "% of peak", "x fp32"] + [f"x {p}" for p in PEERS]
    lines += ["", "| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    for r in table:
        cells = [r["workload"], r["model"], r["threads"], r["ctformer_ms"], r["gflops"], r["percent_of_peak"], r["speedup_vs_fp32"]]
        cells += [r[f"speedup_vs_{p}"] for p in PEERS]
        lines.append("| " + " | ".join("-" if c is None else str(c) for c in cells) + " |")
    errors = context["errors"]
    if errors:
        lines += ["", "bf16 against the same model in fp32 (largest difference / largest output):"]
        lines += [f"  {name}: {err:.3g} / {top:.3g}" for name, (err, top) in sorted(errors.items())]
    return lines + ["", FORMULAS]


def splice(path, block, command, lines):
    """Puts the report, with the CPU, the date and the command, in `path` between the markers
    <!-- table BLOCK: begin --> and <!-- table BLOCK: end -->."""
    begin, end = f"<!-- table {block}: begin -->", f"<!-- table {block}: end -->"
    with open(path) as f:
        text = f.read()
    if begin not in text or end not in text:
        raise SystemExit(f"report.py: {path} has no '{begin}' ... '{end}' block")
    with open("/proc/cpuinfo") as f:
        cpu = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), "?")
    head, rest = text.split(begin, 1)
    _, tail = rest.split(end, 1)
    body = [f"{cpu}, {os.cpu_count()} cores, {datetime.date.today()}, `{command}`:", "", "```"]
    body += [line for line in lines if not line.startswith("|") and line] + ["```", ""]
    body += [line for line in lines if line.startswith("|")]
    with open(path, "w") as f:
        f.write(head + begin + "\n" + "\n".join(body) + "\n" + end + tail)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("inputs", nargs="+")
    parser.add_argument("--csv")
    parser.add_argument("--json")
    parser.add_argument("--readme", help="a Markdown file whose table block BLOCK the report replaces")
    parser.add_argument("--block", default="best", help="the block's name in its markers")
    parser.add_argument("--command", default="bench/run.sh", help="the command named above the table")
    args = parser.parse_args()
    times, gflops, context = load(args.inputs)
    table = list(rows(times, gflops))
    lines = report(table, gflops, context)
    print("\n".join(lines))
    if args.readme:
        splice(args.readme, args.block, args.command, lines)
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(table[0].keys()) if table else ["workload"])
            writer.writeheader()
            writer.writerows(table)
    if args.json:
        with open(args.json, "w") as f:
            peaks = {n.split(":")[1]: g for n, g in gflops.items() if n.startswith("peak/fma/")}
            json.dump({"peak_gflops_by_threads": peaks, "peers": {p: context.get("peer " + p) for p in PEERS},
                       "rows": table, "flops": FORMULAS}, f, indent=1)


if __name__ == "__main__":
    main()

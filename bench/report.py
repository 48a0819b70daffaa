#!/usr/bin/python3
"""The comparison table: ctformer's time, GFLOP/s and share of the FMA peak for each workload and
thread count, and its speed-up over each peer measured in the same run (peer time / ctformer time).
Reads Google Benchmark JSON files (compare_bench's, pytorch_peer.py's); writes a Markdown table to
stdout and the same rows as CSV and JSON.
    bench/report.py compare.json pytorch.json --csv table.csv --json table.json
"""
import argparse
import csv
import json
import re

PEERS = {"eigen": "libeigen3-dev", "onednn": "libdnnl-dev", "pytorch": "python3-torch"}
FORMULAS = """FLOPs (dense; a causal run is credited with the full square):
  mha  2*B*L*d*4d (Q, K, V, output projections) + 4*B*L^2*d (scores, P.V)
  enc  mha + 4*B*L*d*d_ff (feed-forward); enc6 six times enc
% of peak: GFLOP/s over (threads x the one-core FMA peak measured in the same run)"""


def load(paths):
    times, gflops, context, labels = {}, {}, {}, {}
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
    context["targets"] = labels
    return times, gflops, context


def rows(times, gflops, context):
    peak = gflops.get("peak/fma/threads:1")
    for name in sorted(n for n in times if n.startswith("ctformer/")):
        _, what, workload, threads = name.split("/")
        t = int(threads.split(":")[1])
        row = {"workload": workload, "model": what, "threads": t, "ctformer_ms": round(times[name], 4),
               "gflops": round(gflops.get(name, 0), 1),
               "percent_of_peak": round(100 * gflops[name] / (peak * t), 1) if peak and name in gflops else None}
        for peer in PEERS:
            other = times.get(f"{peer}/{what}/{workload}/{threads}")
            row[f"speedup_vs_{peer}"] = round(other / times[name], 2) if other else None
        yield row


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("inputs", nargs="+")
    parser.add_argument("--csv")
    parser.add_argument("--json")
    args = parser.parse_args()
    times, gflops, context = load(args.inputs)
    table = list(rows(times, gflops, context))
    peak = gflops.get("peak/fma/threads:1")
    targets = context["targets"]
    print(f"FMA peak, one core: {peak:.1f} GFLOP/s ({targets.get('peak/fma/threads:1', '?')})" if peak
          else "FMA peak: not measured")
    used = sorted({t for n, t in targets.items() if n.startswith("ctformer/")})
    print(f"ctformer: Highway target {', '.join(used) or '?'}")
    for peer, package in PEERS.items():
        print(f"peer {peer}: {context.get('peer ' + peer, 'missing (install ' + package + ')')}")
    head = ["workload", "model", "threads", "ctformer ms", "GFLOP/s", "% of peak"] + [f"x {p}" for p in PEERS]
    print("\n| " + " | ".join(head) + " |\n|" + " --- |" * len(head))
    for r in table:
        cells = [r["workload"], r["model"], r["threads"], r["ctformer_ms"], r["gflops"], r["percent_of_peak"]]
        cells += [r[f"speedup_vs_{p}"] for p in PEERS]
        print("| " + " | ".join("-" if c is None else str(c) for c in cells) + " |")
    print("\n" + FORMULAS)
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(table[0].keys()) if table else ["workload"])
            writer.writeheader()
            writer.writerows(table)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"peak_gflops_one_core": peak, "peers": {p: context.get("peer " + p) for p in PEERS},
                       "rows": table, "flops": FORMULAS}, f, indent=1)


if __name__ == "__main__":
    main()

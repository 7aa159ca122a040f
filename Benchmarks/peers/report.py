#!/usr/bin/env python3
"""Prints per-operation figures from package-benchmark's JMH export and ratios against a peer.

Usage: report.py KIND SWIFT_JMH_JSON [PEER_JSON]
Every Swift benchmark here runs 1,000 operations per measured iteration (scaling factor .kilo), so the
per-operation time is the mean iteration time divided by 1,000; the storage proof alone runs one
compile-and-prove per iteration, and the prover one proof (scaling factor .one).
"""
import json
import sys

BATCH = 1000


def swift_results(path, kind):
    results = {}
    for entry in json.load(open(path)):
        name = entry["benchmark"].split(".", 3)[-1]
        wall = entry["secondaryMetrics"]["Time (wall clock)"]
        assert wall["scoreUnit"] == "μs", wall["scoreUnit"]
        mallocs = entry["secondaryMetrics"].get("Malloc (total)", {}).get("score")
        batch = 1 if kind == "prover" or "storage proof" in name.replace("_", " ") else BATCH
        results[name] = (wall["score"] / batch, None if mallocs is None else mallocs / batch)
    return results


def main():
    kind, swift_path = sys.argv[1], sys.argv[2]
    peer = json.load(open(sys.argv[3])) if len(sys.argv) > 3 else {}
    results = swift_results(swift_path, kind)
    print(f"== {kind} ==")
    header = f"{'benchmark':52} {'µs/op':>9} {'ops/s':>12} {'mallocs/op':>10}"
    if peer:
        header += f" {'peer ops/s':>11} {'ratio':>8}"
    print(header)
    for name, (micros, mallocs) in sorted(results.items()):
        line = f"{name.replace('_', ' '):52} {micros:9.3f} {1e6 / micros:12,.0f} {'' if mallocs is None else f'{mallocs:10.1f}'}"
        for peer_name, peer_rate in peer.items():
            if name.replace("_", " ").endswith(peer_name.replace("_", " ")):
                line += f" {peer_rate:11,.0f} {1e6 / micros / peer_rate:7.1f}×"
        print(line)


if __name__ == "__main__":
    main()

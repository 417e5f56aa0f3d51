"""Benchmark of the 15-puzzle solver on Korf's 100 boards: tables, the table search, plain Manhattan.

    nice -n 10 python3 benchmarks/bench_fifteen.py [--boards 100] [--manhattan-nodes 10000000] [--rebuild]

Reports, apart: the pattern tables' build (seconds and the build process's peak memory, in a
process of its own) and their load; then every board solved with the tables (each length
checked against Korf's); then plain Manhattan-distance IDA* (the same compiled search without
tables) on the same boards with a node budget per board, so it finishes.
"""

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

KORF = ROOT / "benchmarks" / "data" / "korf100.txt"


def korf_boards() -> list[tuple[int, int, list[int]]]:
    """(id, optimal length, tiles for tapsolve's goal): Korf's boards turned half a turn."""
    out = []
    for line in KORF.read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        head, tiles = line.split(":")
        number, length, _ = head.split()
        korf = [int(t) for t in tiles.split()]
        ours = [0] * 16
        for cell, tile in enumerate(korf):
            ours[15 - cell] = 16 - tile if tile else 0
        out.append((int(number), int(length), ours))
    return out


def build_in_own_process() -> tuple[float, float]:
    """(seconds, peak MB) of building the tables from nothing in a fresh process."""
    code = ("import time; from solver import fifteen, _fifteen_kernel as k; import numpy as np;"
            "k.build_pattern_table(np.array([13, 14, 15], np.int64));"  # compile (or load) first
            "t0 = time.perf_counter(); fifteen.pattern_tables(rebuild=True);"
            "from solver.platforms import peak_memory_mib; print(time.perf_counter() - t0, peak_memory_mib() or 0)")
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, capture_output=True, text=True)
    seconds, peak = run.stdout.split()[-2:]
    return float(seconds), float(peak)


def summary(times: list[float]) -> str:
    return (f"median {statistics.median(times):.4f} s, mean {statistics.mean(times):.4f} s, "
            f"max {max(times):.3f} s, total {sum(times):.2f} s")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=100, help="the first N of Korf's boards (default 100)")
    parser.add_argument("--manhattan-nodes", type=int, default=10_000_000,
                        help="node budget per board for plain Manhattan IDA* (default 10 million)")
    parser.add_argument("--rebuild", action="store_true", help="build the tables from nothing first and report it")
    args = parser.parse_args()

    from solver import fifteen

    boards = korf_boards()[:args.boards]
    print(f"Korf's boards: {len(boards)}, mean optimal length {statistics.mean(b[1] for b in boards):.2f}")
    if args.rebuild or not fifteen.table_path().exists():
        seconds, peak = build_in_own_process()
        print(f"tables built from nothing: {seconds:.1f} s, build process peak memory {peak:.0f} MB")
    t0 = time.perf_counter()
    tables = fifteen.pattern_tables()
    print(f"tables loaded and checked: {time.perf_counter() - t0:.2f} s, "
          f"{tables['pdb'].nbytes / 1e6:.1f} MB in memory ({fifteen.table_path()})")
    fifteen.solve(fifteen.Board.goal(4))  # compile or load the kernel before timing

    times, nodes, wrong = [], [], []
    for number, length, tiles in boards:
        solution = fifteen.solve(fifteen.Board(tiles))
        times.append(solution.seconds)
        nodes.append(solution.nodes)
        if len(solution.moves) != length or not solution.optimal:
            wrong.append(number)
    print(f"6-6-3 tables + mirror: {len(boards) - len(wrong)}/{len(boards)} optimal"
          + (f" (wrong: {wrong})" if wrong else "") + f"; {summary(times)}; "
          f"nodes median {statistics.median(nodes):,.0f}, total {sum(nodes):,}, "
          f"{sum(nodes) / sum(times) / 1e6:.1f} M nodes/s")

    m_times, m_nodes, solved, m_wrong = [], [], [], []
    board_nodes = []
    for (number, length, tiles), table_nodes in zip(boards, nodes):
        board = fifteen.Board(tiles)
        t0 = time.perf_counter()
        line, spent, found = fifteen.search(board, tables=False, node_budget=args.manhattan_nodes)
        m_times.append(time.perf_counter() - t0)
        m_nodes.append(spent)
        if found:
            solved.append(number)
            board_nodes.append((spent, table_nodes))
            if len(line) != length:
                m_wrong.append(number)
    ratio = statistics.median(s / t for s, t in board_nodes) if board_nodes else float("nan")
    print(f"plain Manhattan IDA* ({args.manhattan_nodes:,} nodes a board at most): "
          f"{len(solved)}/{len(boards)} solved within the budget"
          + (f" (wrong length: {m_wrong})" if m_wrong else ", all optimal")
          + f"; {summary(m_times)}; on the boards it solved, median {ratio:,.0f}x the table search's nodes")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Reads an ncu --csv --page raw log and prints, per kernel launch, the L2 slices' rate
(lts__t_bytes / gpu__time_duration) and the share of the SMs' bytes they served.

    python3 ncu_rates.py FILE.csv [--json OUT]
"""
import csv
import io
import json
import sys

UNITS = {"byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9, "nsecond": 1e-9, "ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1, "usecond": 1e-6,
         "msecond": 1e-3, "second": 1, "sector": 1, "": 1}


def rows_of(path):
    text = open(path, encoding="utf-8", errors="replace").read()
    start = text.find('"ID"')
    table = list(csv.reader(io.StringIO(text[start:])))
    header, units = table[0], table[1]
    out = []
    for r in table[2:]:
        if len(r) != len(header):
            continue
        row = {"kernel": r[header.index("Kernel Name")], "grid": r[header.index("Grid Size")],
               "block": r[header.index("Block Size")]}
        for i, h in enumerate(header):
            if "__" in h and h.endswith(".sum"):
                try:
                    row[h] = float(r[i].replace(",", "")) * UNITS.get(units[i], 1)
                except ValueError:
                    pass
        t = row.get("gpu__time_duration.sum")
        if t:
            row["lts_tbps"] = row.get("lts__t_bytes.sum", 0) / t / 1e12
            if row.get("l1tex__t_bytes.sum"):
                row["lts_over_l1"] = row["lts__t_bytes.sum"] / row["l1tex__t_bytes.sum"]
        out.append(row)
    return out


if __name__ == "__main__":
    rows = rows_of(sys.argv[1])
    for r in rows:
        print(f"{r['kernel'][:60]:60s} grid {r['grid']:>14s} lts {r.get('lts_tbps', 0):6.2f} TB/s "
              f"lts/l1 {r.get('lts_over_l1', 0):5.3f} dram {r.get('dram__bytes_read.sum', 0) / 1e6:8.1f} MB")
    if "--json" in sys.argv:
        json.dump(rows, open(sys.argv[sys.argv.index("--json") + 1], "w"), indent=1)

"""Adds "seconds per epoch and P@1 against output width" to a width sweep's report.

Reads OUT/results.csv and OUT/curves.csv (one curve point per epoch), writes
OUT/plots/width.dat, OUT/plots/width.gp, OUT/plots/width.png (when gnuplot is installed)
and appends a table and the plot to OUT/report.md.
"""
import csv
import shutil
import subprocess
import sys
from pathlib import Path

WIDTHS = {"width-67k": 67009, "width-670k": 670091, "width-2m": 2000000}
MARKER = "## Width: one epoch against the output width"
NOTE = ("Same rows and features, same active count for the sparse rows. The sparse rows run two epochs so "
        "that an epoch's time is seen without the start-up (network init, first table build); the dense row "
        "runs one (its start-up is small next to its epoch). A dense row that is missing was left out for "
        "time (see harness/matrices/width.toml).")


def epoch_points(out: Path) -> dict:
    """cell_id -> [(seconds, epoch, value)] from curves.csv, in epoch order."""
    points = {}
    for r in csv.DictReader(open(out / "curves.csv")):
        points.setdefault(r["cell_id"], []).append((float(r["seconds"]), float(r["epoch"]), float(r["value"])))
    return {cell: sorted(p, key=lambda x: x[1]) for cell, p in points.items()}


def table_and_series(out: Path):
    rows = [r for r in csv.DictReader(open(out / "results.csv")) if r["dataset"] in WIDTHS]
    curves = epoch_points(out)
    table = ["| labels | engine | status | epochs | first epoch s (with start-up) | second epoch s | samples/s | "
             "P@1 after one epoch (2,000 rows) | final P@1 |", "|---|---|---|---|---|---|---|---|---|"]
    series = {}
    for r in sorted(rows, key=lambda r: (WIDTHS[r["dataset"]], r["engine"])):
        width, points = WIDTHS[r["dataset"]], curves.get(r["cell_id"], [])
        if r["status"] != "ok" or not points:
            table.append(f"| {width:,} | `{r['engine']}` | {r['status']} | | | | | | |")
            continue
        first = points[0][0]
        second = points[1][0] - points[0][0] if len(points) > 1 else None
        table.append(f"| {width:,} | `{r['engine']}` | ok | {r['epochs']} | {first:.1f} | "
                     + ("—" if second is None else f"{second:.1f}")
                     + f" | {float(r['samples_per_second']):.0f} | {points[0][2]:.4f} | {float(r['p_at_1']):.4f} |")
        series.setdefault(r["engine"], []).append((width, first if second is None else second, points[0][2]))
    return table, series


def plot(plots: Path, series: dict) -> None:
    engines = sorted(series)
    with open(plots / "width.dat", "w") as f:
        for engine in engines:
            f.write(f"# {engine}\n" + "".join(f"{w} {s} {p}\n" for w, s, p in series[engine]) + "\n\n")

    def lines(column):
        return ", ".join(f"'width.dat' index {i} using 1:{column} with linespoints title '{e}'"
                         for i, e in enumerate(engines))

    (plots / "width.gp").write_text(
        "set terminal pngcairo size 1000,420 noenhanced\nset output 'width.png'\nset multiplot layout 1,2\n"
        "set logscale x\nset grid\nset key top left\nset xlabel 'output neurons'\n"
        "set ylabel 'seconds per epoch (second epoch where run)'\nset logscale y\nplot " + lines(2) + "\n"
        "unset logscale y\nset ylabel 'P@1 after one epoch (2,000 test rows)'\nplot " + lines(3) + "\n"
        "unset multiplot\n")
    if shutil.which("gnuplot"):
        subprocess.run(["gnuplot", "width.gp"], cwd=plots, check=True)


def main(out: Path) -> None:
    table, series = table_and_series(out)
    plots = out / "plots"
    plots.mkdir(exist_ok=True)
    plot(plots, series)
    report = out / "report.md"
    text = report.read_text().split(MARKER)[0]
    report.write_text(text + f"{MARKER}\n\n{NOTE}\n\n" + "\n".join(table) + "\n\n![width](plots/width.png)\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]))

"""Adds "seconds per epoch and P@1 against output width" to a width sweep's report.

Reads OUT/results.csv (one epoch per cell), writes OUT/plots/width.dat, OUT/plots/width.gp,
OUT/plots/width.png (when gnuplot is installed) and appends a table and the plot to
OUT/report.md.
"""
import csv
import shutil
import subprocess
import sys
from pathlib import Path

WIDTHS = {"width-67k": 67009, "width-670k": 670091, "width-2m": 2000000}


def main(out: Path) -> None:
    rows = [r for r in csv.DictReader(open(out / "results.csv")) if r["dataset"] in WIDTHS]
    engines = sorted({r["engine"] for r in rows})
    table = ["| labels | engine | status | train s (1 epoch) | samples/s | P@1 |", "|---|---|---|---|---|---|"]
    series = {e: [] for e in engines}
    for r in sorted(rows, key=lambda r: (WIDTHS[r["dataset"]], r["engine"])):
        ok = r["status"] == "ok"
        table.append(f"| {WIDTHS[r['dataset']]:,} | `{r['engine']}` | {r['status']} | "
                     f"{float(r['train_seconds']):.1f} | {float(r['samples_per_second']):.0f} | {float(r['p_at_1']):.4f} |"
                     if ok else f"| {WIDTHS[r['dataset']]:,} | `{r['engine']}` | {r['status']} | | | |")
        if ok:
            series[r["engine"]].append((WIDTHS[r["dataset"]], float(r["train_seconds"]), float(r["p_at_1"])))
    plots = out / "plots"
    plots.mkdir(exist_ok=True)
    with open(plots / "width.dat", "w") as f:
        for engine in engines:
            f.write(f"# {engine}\n" + "".join(f"{w} {s} {p}\n" for w, s, p in series[engine]) + "\n\n")
    plot_lines = lambda col: ", ".join(
        f"'width.dat' index {i} using 1:{col} with linespoints title '{e}'" for i, e in enumerate(engines))
    (plots / "width.gp").write_text(
        "set terminal pngcairo size 1000,420 noenhanced\nset output 'width.png'\nset multiplot layout 1,2\n"
        "set logscale x\nset grid\nset key top left\nset xlabel 'output neurons'\n"
        "set ylabel 'training seconds, one epoch'\nset logscale y\nplot " + plot_lines(2) + "\n"
        "unset logscale y\nset ylabel 'P@1 after one epoch'\nplot " + plot_lines(3) + "\nunset multiplot\n")
    if shutil.which("gnuplot"):
        subprocess.run(["gnuplot", "width.gp"], cwd=plots, check=True)
    report = out / "report.md"
    text = report.read_text()
    marker = "## Width: one epoch against the output width"
    text = text.split(marker)[0]
    text += (f"{marker}\n\nSame rows and features, same active count for the sparse rows; a dense row that "
             "is missing did not fit the matrix's time limit or was left out (see harness/matrices/width.toml).\n\n"
             + "\n".join(table) + "\n\n![width](plots/width.png)\n")
    report.write_text(text)


if __name__ == "__main__":
    main(Path(sys.argv[1]))

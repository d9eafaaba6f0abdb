# Written by sparsebench report; run as gnuplot -c plot.gp DIR STEM DATASET METRIC CURVES PRICED
set terminal pngcairo size 900,640 noenhanced
set datafile separator "\t"
set key below
set grid
stem = ARG1 . "/" . ARG2
curves = ARG5 + 0
if (curves > 0) {
  set output stem . "-curves.png.tmp"
  set logscale x
  set xlabel "training seconds"
  set ylabel ARG4
  set title ARG3 . ": time to accuracy"
  plot for [i=0:curves-1] sprintf("%s-curve%d.dat", stem, i) using 1:2 with linespoints title columnheader(3)
  unset logscale x
}
set output stem . "-cost.png.tmp"
set style fill solid
set boxwidth 0.6
set yrange [0:*]
set xtics rotate by -30
set ylabel (ARG6 eq "1" ? "USD per run" : "training seconds")
set title ARG3 . (ARG6 eq "1" ? ": cost per run" : ": training time (no price given)")
set xlabel ""
plot stem . "-bars.dat" using 0:2:xtic(1) with boxes notitle

cd '/work/main/results/latest/plots'
set terminal pngcairo size 900,500 noenhanced
set key bottom right
set grid
set output 'dbpedia-curves.png'
set logscale x
set xlabel 'training seconds'
set ylabel 'accuracy'
set title 'dbpedia: time to accuracy'
plot 'dbpedia-curve0.dat' using 1:2 with linespoints title 'text (2t, AMD EPYC, 2 cores)', 'dbpedia-curve1.dat' using 1:2 with linespoints title 'sparse (2t, AMD EPYC, 2 cores)', 'dbpedia-curve2.dat' using 1:2 with linespoints title 'blas (2t, AMD EPYC, 2 cores)', 'dbpedia-curve3.dat' using 1:2 with linespoints title 'torch (2t, AMD EPYC, 2 cores)', 'dbpedia-curve4.dat' using 1:2 with linespoints title 'fasttext (2t, AMD EPYC, 2 cores)', 'dbpedia-curve5.dat' using 1:2 with linespoints title 'fasttext-tuned (2t, AMD EPYC, 2 cores)'
unset logscale x
set output 'dbpedia-cost.png'
set style fill solid
set boxwidth 0.6
set yrange [0:*]
set xtics rotate by -30
set ylabel 'training seconds'
set title 'dbpedia: training time (no price given)'
plot 'dbpedia-bars.dat' using 0:2:xtic(1) with boxes notitle

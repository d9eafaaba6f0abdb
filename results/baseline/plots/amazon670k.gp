cd '/tmp/baseline-new/plots'
set terminal pngcairo size 900,500 noenhanced
set key bottom right
set grid
set output 'amazon670k-curves.png'
set logscale x
set xlabel 'training seconds'
set ylabel 'p_at_1'
set title 'amazon670k: time to accuracy'
plot 'amazon670k-curve0.dat' using 1:2 with linespoints title 'sparse (2t, AMD EPYC, 2 cores)', 'amazon670k-curve1.dat' using 1:2 with linespoints title 'blas (2t, AMD EPYC, 2 cores)', 'amazon670k-curve2.dat' using 1:2 with linespoints title 'torch (2t, AMD EPYC, 2 cores)', 'amazon670k-curve3.dat' using 1:2 with linespoints title 'fasttext (2t, AMD EPYC, 2 cores)'
unset logscale x
set output 'amazon670k-cost.png'
set style fill solid
set boxwidth 0.6
set yrange [0:*]
set xtics rotate by -30
set ylabel 'training seconds'
set title 'amazon670k: training time (no price given)'
plot 'amazon670k-bars.dat' using 0:2:xtic(1) with boxes notitle

cd '/tmp/baseline-new/plots'
set terminal pngcairo size 900,500 noenhanced
set key bottom right
set grid
set output 'yelp-curves.png'
set logscale x
set xlabel 'training seconds'
set ylabel 'accuracy'
set title 'yelp: time to accuracy'
plot 'yelp-curve0.dat' using 1:2 with linespoints title 'text (2t, AMD EPYC, 2 cores)', 'yelp-curve1.dat' using 1:2 with linespoints title 'sparse (2t, AMD EPYC, 2 cores)', 'yelp-curve2.dat' using 1:2 with linespoints title 'blas (2t, AMD EPYC, 2 cores)', 'yelp-curve3.dat' using 1:2 with linespoints title 'torch (2t, AMD EPYC, 2 cores)', 'yelp-curve4.dat' using 1:2 with linespoints title 'fasttext (2t, AMD EPYC, 2 cores)'
unset logscale x
set output 'yelp-cost.png'
set style fill solid
set boxwidth 0.6
set yrange [0:*]
set xtics rotate by -30
set ylabel 'training seconds'
set title 'yelp: training time (no price given)'
plot 'yelp-bars.dat' using 0:2:xtic(1) with boxes notitle

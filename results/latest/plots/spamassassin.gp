cd '/work/main/results/latest/plots'
set terminal pngcairo size 900,500 noenhanced
set key bottom right
set grid
set output 'spamassassin-curves.png'
set logscale x
set xlabel 'training seconds'
set ylabel 'accuracy'
set title 'spamassassin: time to accuracy'
plot 'spamassassin-curve0.dat' using 1:2 with linespoints title 'text (2t, AMD EPYC, 2 cores)', 'spamassassin-curve1.dat' using 1:2 with linespoints title 'sparse (2t, AMD EPYC, 2 cores)', 'spamassassin-curve2.dat' using 1:2 with linespoints title 'blas (2t, AMD EPYC, 2 cores)', 'spamassassin-curve3.dat' using 1:2 with linespoints title 'fasttext (2t, AMD EPYC, 2 cores)', 'spamassassin-curve4.dat' using 1:2 with linespoints title 'fasttext-tuned (2t, AMD EPYC, 2 cores)'
unset logscale x
set output 'spamassassin-cost.png'
set style fill solid
set boxwidth 0.6
set yrange [0:*]
set xtics rotate by -30
set ylabel 'training seconds'
set title 'spamassassin: training time (no price given)'
plot 'spamassassin-bars.dat' using 0:2:xtic(1) with boxes notitle

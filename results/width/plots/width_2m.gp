cd '/work/main/results/width/plots'
set terminal pngcairo size 900,500 noenhanced
set key bottom right
set grid
set output 'width_2m-curves.png'
set logscale x
set xlabel 'training seconds'
set ylabel 'p_at_1'
set title 'width-2m: time to accuracy'
plot 'width_2m-curve0.dat' using 1:2 with linespoints title 'sparse (2t, AMD EPYC, 2 cores)', 'width_2m-curve1.dat' using 1:2 with linespoints title 'sparse-random (2t, AMD EPYC, 2 cores)'
unset logscale x
set output 'width_2m-cost.png'
set style fill solid
set boxwidth 0.6
set yrange [0:*]
set xtics rotate by -30
set ylabel 'training seconds'
set title 'width-2m: training time (no price given)'
plot 'width_2m-bars.dat' using 0:2:xtic(1) with boxes notitle

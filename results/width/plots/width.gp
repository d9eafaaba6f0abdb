set terminal pngcairo size 1000,420 noenhanced
set output 'width.png'
set multiplot layout 1,2
set logscale x
set grid
set key top left
set xlabel 'output neurons'
set ylabel 'seconds per epoch (second epoch where run)'
set logscale y
plot 'width.dat' index 0 using 1:2 with linespoints title 'blas', 'width.dat' index 1 using 1:2 with linespoints title 'sparse', 'width.dat' index 2 using 1:2 with linespoints title 'sparse-random'
unset logscale y
set ylabel 'P@1 after one epoch (2,000 test rows)'
plot 'width.dat' index 0 using 1:3 with linespoints title 'blas', 'width.dat' index 1 using 1:3 with linespoints title 'sparse', 'width.dat' index 2 using 1:3 with linespoints title 'sparse-random'
unset multiplot

# bars.gp - a summary metric per sweep point when the swept values are
# text (categories, not a scale): one bar per point from 0, its confidence
# interval as an error bar, the point's label under it.
# Rows: index, mean, low, high, "label".
load 'gp/common.gp'
set style fill solid 0.45 border -1
set boxwidth 0.6
set yrange [0:*]
set offsets 0.6, 0.6, graph 0.05, 0
set xtics scale 0
eval png_term
set output name.'.png'
plot datafile index 0 using 1:2:xtic(5) with boxes lc 1 title columnheader(1), \
     '' index 0 using 1:2:3:4 with yerrorbars lc rgb '#333333' pt 7 ps 0.6 notitle
eval svg_term
set output name.'.svg'
replot
unset output

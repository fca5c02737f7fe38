# sweep.gp - a summary metric against the swept parameter: mean over
# replications with its Student-t confidence interval as error bars.
# Rows: parameter value, mean, low, high.
load 'gp/common.gp'
set offsets graph 0.03, graph 0.03, graph 0.05, graph 0.05
eval png_term
set output name.'.png'
plot for [i=0:nblocks-1] datafile index i using 1:2:3:4 with yerrorlines lw 2 pt 7 lc i+1 title columnheader(1)
eval svg_term
set output name.'.svg'
replot
unset output

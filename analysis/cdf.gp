# cdf.gp - cumulative distribution functions read from histogram bins
# (one block per distribution; rows: value, fraction of observations <= it;
# resolution is the histogram's bin width).
load 'gp/common.gp'
set yrange [0:1.02]
eval png_term
set output name.'.png'
plot for [i=0:nblocks-1] datafile index i using 1:2 with lines lw 2 lc i+1 title columnheader(1)
eval svg_term
set output name.'.svg'
replot
unset output

# fraction.gp - signatureless fraction over time with its confidence band.
# Data rows: time, mean fraction over replications, band low, band high
# (Student-t interval across replications; the band collapses to the line
# when there is one replication).
load 'gp/common.gp'
# autoscaled: an effect of a few tenths of a percent must stay visible
set offsets 0, 0, graph 0.05, graph 0.05
set style fill transparent solid 0.18 noborder
eval png_term
set output name.'.png'
plot for [i=0:nblocks-1] datafile index i using 1:3:4 with filledcurves lc i+1 notitle, \
     for [i=0:nblocks-1] datafile index i using 1:2 with lines lw 2 lc i+1 title columnheader(1)
eval svg_term
set output name.'.svg'
replot
unset output

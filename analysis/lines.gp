# lines.gp - one line per block (e.g. signatures per hour per signer).
# Rows: time, value.
load 'gp/common.gp'
set yrange [0:*]
set offsets 0, 0, graph 0.08, 0
eval png_term
set output name.'.png'
plot for [i=0:nblocks-1] datafile index i using 1:2 with lines lw 2 lc i+1 title columnheader(1)
eval svg_term
set output name.'.svg'
replot
unset output

# common.gp - terminals and style shared by every figure of `mtcsim report`.
#
# Each figure script is run by the report in the report directory as
#     gnuplot gp/<figure>.vars.gp gp/<script>.gp
# where the .vars.gp file (written by the report) sets: name (output base
# name), datafile, nblocks (data blocks, one per line drawn; the first row
# of each block is its quoted title), xlabel, ylabel, title, logx (0/1).
# The scripts are embedded in build/mtcsim and written into DIR/gp/, so a
# report directory can be re-rendered by hand with the same command.

# pngcairo when this gnuplot has it (Debian's gnuplot-nox does), else libgd.
if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
    png_term = "set terminal pngcairo size 960,600 noenhanced font ',11'"
} else {
    png_term = "set terminal png size 960,600 noenhanced"
}
svg_term = "set terminal svg size 960,600 noenhanced dynamic font 'sans,11' background '#ffffff'"

set grid lc rgb '#dddddd'
set key below
set title title
set xlabel xlabel
set ylabel ylabel
if (logx) { set logscale x }

#!/usr/bin/env tclsh
# Drives Sentinel with Scid's own engine code (tcl/enginecomm.tcl, from Debian's `scid`
# package), the way Scid's engine window does (tcl/windows/engine.tcl): connect, which sends
# `uci` and falls back to `xboard` when no `uciok` comes within 2 s; NewGame with analysis,
# post_pv and post_wdl; Go with a position and no limits (`go infinite`); StopGo after a few
# seconds. It prints the traffic and what Scid made of each variation, and exits 1 unless
# Scid read variations (with win/draw/loss figures, over UCI). PROTOCOLS is Scid's choice:
# "uci xboard" (its "auto", the default), "uci" or "xboard". docs/gui.md shows a run.
#
#   tclsh tools/scid-analyse.tcl [SENTINEL] [SECONDS] [PROTOCOLS] [ENGINECOMM.TCL]
set engine [expr {$argc > 0 ? [lindex $argv 0] : "target/release/sentinel"}]
set seconds [expr {$argc > 1 ? [lindex $argv 1] : 3}]
set protocols [expr {$argc > 2 ? [lindex $argv 2] : "uci xboard"}]
set comm [expr {$argc > 3 ? [lindex $argv 3] : "/usr/share/scid/tcl/enginecomm.tcl"}]
# Scid creates these namespaces in the files it loads before enginecomm.tcl.
namespace eval ::uci {}
namespace eval ::xboard {}
source $comm

set position "position fen r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3 moves f1c4"
set variations 0
set with_wdl 0
set protocol ""

proc log_recv {line} {
    if {![string match "info depth*" $line] || [string match "* pv *" $line]} { puts "< $line" }
}
proc log_send {line} { puts "> $line" }

proc callback {msg} {
    lassign $msg type data
    switch $type {
        InfoConfig {
            set ::protocol [lindex $data 0]
            puts "InfoConfig: protocol $::protocol, [llength [lindex $data 2]] options"
            set ::configured 1
        }
        InfoReady { puts "InfoReady" }
        InfoGo { puts "InfoGo" }
        InfoPV {
            lassign $data multipv depth seldepth nodes nps hashfull tbhits time score type wdl pv
            puts "InfoPV: depth $depth score $type $score wdl {$wdl} nodes $nodes pv {$pv}"
            incr ::variations
            if {[llength $wdl] == 3} { incr ::with_wdl }
        }
        InfoDisconnected { puts "InfoDisconnected $data"; set ::finished 1 }
        default { puts "$type $data" }
    }
}

::engine::setLogCmd 1 log_recv log_send
::engine::connect 1 callback $engine {} $protocols
vwait ::configured
::engine::send 1 NewGame [list analysis post_pv post_wdl]
::engine::send 1 Go [list $position]
after [expr {$seconds * 1000}] { ::engine::send 1 StopGo; after 500 { set ::finished 1 } }
vwait ::finished
catch { ::engine::close 1 }
puts "protocol $protocol; $variations variations read, $with_wdl with win/draw/loss figures"
set wdl_ok [expr {$protocol ne "uci" || $with_wdl == $variations}]
exit [expr {$protocol in {uci xboard} && $variations > 0 && $wdl_ok ? 0 : 1}]

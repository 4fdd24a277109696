#!/bin/sh
# Prints the fastchess flags with which the match scripts (tools/sprt.sh with ADJUDICATE=1,
# benches/threads-elo.sh) end a game early, as OpenBench does: won when both engines agree,
# three moves each, that one side is more than 1000 cp up; drawn when both see the game within
# 10 cp for eight moves each after move 40. Kept here so that the scripts cannot drift apart.
echo "-resign movecount=3 score=1000 twosided=true -draw movenumber=40 movecount=8 score=10"

#!/bin/sh
# Usage: tools/train-chain.sh [--dry-run] [--from G] [--to G] [--threads N]
#
# The chain of generations that made the built-in network (net 14, generation 10), as one
# table and the loop that runs it: each generation plays self-play games with the network
# before it (`sentinel datagen`) and trains the next one on them and on earlier data (`sentinel
# train`). docs/network.md says what the recipe is and why, docs/training.md what each tool does.
#
#   tools/train-chain.sh --dry-run          # print every command, run nothing (networks
#                                           # shown taken from the history as if none existed)
#   tools/train-chain.sh --from 8 --to 8    # one generation (its inputs must exist: see below)
#   tools/train-chain.sh                    # all ten: days of CPU time on two cores
#
# Everything goes to $SENTINEL_DATA/chain (SENTINEL_DATA is ~/sentinel-data unless set): the
# tools binary (built once with `--features tune` and copied there, so that the work tree can be
# rebuilt meanwhile), the data files (genN.bin, with their logs) and the networks
# (netN/net.nnue). A step whose output is complete is skipped (a data file is complete once
# its `.done` marker exists), so a stopped run is started again the same way; a data file left
# without its marker is deleted and played again. Generation G needs the files of earlier
# generations that its rows name; a network missing there is taken from the commit that built
# it in (`history` below), so generation 8 (`--from 8 --to 8`: net 11's games, net 12 trained
# from net 11) runs from a clean checkout. The data files are not in git: generations 5-7 and
# 9 also train on earlier generations' data, which must be made first.
#
# Nets 4a to 8 are 256 wide (net 4a in the version-2 file format), shapes the engine no longer
# reads; the tools binary (`--features tune`) reads, trains and plays them (`datagen --net`
# evaluates each position afresh with them, slower than the engine's own shape), so the whole
# chain replays with it.
#
# A re-run makes networks of the same recipe, not the same bytes: games played on several
# threads reach the file in the order they end, every generation plays with today's search
# (the originals played with the search of their day) and the openings are the repository's
# tools/openings.epd (the originals used an older 400-position set of the same kind).
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
dry_run=0
from=1
to=10
threads=2
while [ $# -gt 0 ]; do
    case $1 in
    --dry-run) dry_run=1 ;;
    --from) from=$2 && shift ;;
    --to) to=$2 && shift ;;
    --threads) threads=$2 && shift ;;
    *)
        sed -n '2p' "$0" >&2
        exit 2
        ;;
    esac
    shift
done
dir=${SENTINEL_DATA:-$HOME/sentinel-data}/chain
tools=$dir/sentinel-tools
openings=$here/tools/openings.epd

# The generations. `data G FILE PLAYER GAMES SEED [OPTIONS]`: self-play by PLAYER (a network
# of the chain, or hand-crafted) into FILE.bin; the defaults are the recipe's (500 nodes a
# move, 100 positions a game at most). `train G NET DATA... -- [OPTIONS]`: NET/net.nnue from
# those files, compared with the network before; the defaults are the recipe's (512 hidden
# neurons, 8 output buckets, 10 epochs, batch 8192, step 0.002, the result weighted 0.2).
# The number of games gives about the positions each generation had.
table() {
    cat <<'EOF'
data  1 gen1   hand-crafted 10600  1   --nodes 4000 --per-game 1000
data  1 lo1    hand-crafted 94500  6
train 1 net4a  gen1 lo1 -- --hidden 256 --output-buckets 1 --wdl 0.3
data  2 gen5   net4a        217500 11
train 2 net6   gen5 -- --compare net4a --hidden 256 --output-buckets 1 --wdl 0.3
data  3 gen7   net6         190000 31
train 3 net7   gen7 -- --compare net6 --hidden 256 --wdl 0.1
data  4 gen8   net7         233000 301
train 4 net8   gen8 -- --compare net7 --hidden 256 --wdl 0.1
data  5 gen9   net8         125000 351
train 5 net9   gen9 gen8 -- --compare net8 --wdl 0.1
data  6 gen10  net9         160000 401
train 6 net10  gen10 gen9 gen8 -- --compare net9 --wdl 0.1
data  7 gen10b net9         72000  431
data  7 gen11  net10        145000 501
train 7 net11  gen11 gen10b gen10 gen9 gen8 -- --compare net10 --wdl 0.0
data  8 gen12  net11        161000 611
train 8 net12  gen12 -- --compare net11 --init net11 --epochs 2 --lr 0.00025 --wdl 0.0
data  9 gen13  net12        653000 701
train 9 net13  gen13 gen12 -- --compare net12 --init net12 --epochs 6 --lr 0.0005 --wdl 0.0
data 10 gen16  net13        666000 835
train 10 net14 gen16 -- --compare net13 --init net13 --epochs 2 --lr 0.00025
EOF
}

# Prints a command, and runs it unless this is a dry run.
run() {
    echo "+ $*"
    [ "$dry_run" = 1 ] || "$@" </dev/null
}

# The commit at which each network was src/eval/network.nnue.
history() {
    cat <<'EOF'
net4a 04a5aac
net6  f9924dc
net7  b6505a3
net8  3c228d2
net9  19bf513
net10 5ea9e20
net11 b399a1d
net12 e1ef7ff
net13 dbbbe99
net14 c3bbbee
EOF
}

# A network of the chain that a step reads (`net6` is net6/net.nnue), taken from the history
# when it is not there yet; prints its path.
input_net() {
    file=$dir/$1/net.nnue
    commit=$(history | awk -v net="$1" '$1 == net { print $2 }')
    if [ ! -e "$file" ] && [ -n "$commit" ]; then
        run sh -c "mkdir -p '$dir/$1' && git -C '$here' show '$commit:src/eval/network.nnue' >'$file'" >&2
    fi
    need "$file"
    echo "$file"
}

need() {
    [ "$dry_run" = 1 ] || [ -e "$1" ] || {
        echo "train-chain: $1 is missing: run the generation that makes it first (see --dry-run)" >&2
        exit 1
    }
}

if [ "$dry_run" = 0 ]; then
    mkdir -p "$dir"
fi
run sh -c "cd '$here' && cargo build --release --features tune && cp target/release/sentinel '$tools'"
table | while read -r kind generation name rest; do
    [ "$generation" -ge "$from" ] && [ "$generation" -le "$to" ] || continue
    # shellcheck disable=SC2086 # the row's words, split on purpose
    set -- $rest
    case $kind in
    data)
        player=$1 games=$2 seed=$3
        shift 3
        out=$dir/$name.bin
        if [ -e "$out.done" ]; then
            echo "train-chain: $name.bin is complete, skipped"
            continue
        fi
        if [ "$player" = hand-crafted ]; then
            evaluation=--hand-crafted
        else
            evaluation="--net $(input_net "$player")"
        fi
        [ "$dry_run" = 1 ] || rm -f "$out"
        # shellcheck disable=SC2086 # $evaluation is one or two words
        run nice -n 19 "$tools" datagen $evaluation --games "$games" --seed "$seed" --threads "$threads" \
            --openings "$openings" --out "$out" "$@"
        [ "$dry_run" = 1 ] || touch "$out.done"
        ;;
    train)
        data=""
        while [ "$1" != -- ]; do
            need "$dir/$1.bin.done"
            data="$data --data $dir/$1.bin"
            shift
        done
        shift
        if [ -e "$dir/$name/net.nnue" ]; then
            echo "train-chain: $name/net.nnue exists, skipped"
            continue
        fi
        options=""
        while [ $# -gt 0 ]; do
            case $1 in
            --compare | --init)
                options="$options $1 $(input_net "$2")"
                shift
                ;;
            *) options="$options $1" ;;
            esac
            shift
        done
        # shellcheck disable=SC2086 # lists of options, split on purpose
        run nice "$tools" train $data --out-dir "$dir/$name" --threads "$threads" $options
        ;;
    esac
done

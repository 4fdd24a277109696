# `make` builds the release binary and copies it to `sentinel` here, or to EXE=path (OpenBench's
# convention).
EXE ?= sentinel

all:
	cargo build --release
	cp target/release/sentinel $(EXE)

.PHONY: all

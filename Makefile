# `make` builds the release binary; `make EXE=path` also copies it to path (OpenBench).
EXE ?= sentinel

all:
	cargo build --release
	cp target/release/sentinel $(EXE)

.PHONY: all

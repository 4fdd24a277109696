// The first bytes of every network file: included by nnue.rs and by build.rs, which refuses
// to embed a file (EVALFILE) that does not start with them.
b"SNTLNNUE"

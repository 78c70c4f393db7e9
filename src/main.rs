//! The `indexer` command line; everything it does is in [`cli`], over the `indexer` library.

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}

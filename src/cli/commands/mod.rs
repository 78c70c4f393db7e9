//! One file per command: its flags (a clap `Args` struct, flattened into
//! [`super::args::Command`]) and its `run`, which resolves the flags, calls the library and
//! prints. Flag groups shared by several commands are in [`super::args`].

pub mod add;
pub mod build;
pub mod combine;
pub mod compare;
pub mod delete;
pub mod eval;
pub mod export;
pub mod extract;
pub mod partition;
pub mod search;
pub mod serve;
pub mod stats;
pub mod train;

//! The index's life: a `build` makes an index from inputs; an `add` decides new inputs as
//! the build did and writes them into a new generation (replacing pages of the same URL when
//! fetched as late or later), then decides again the sites it changed enough; a `delete`
//! removes pages by URL, site or file. Every one writes a new generation that becomes live
//! only when complete, through one [`sink`] of decided pages, and keeps the index's history.
//! The reading and deciding itself is [`crate::run`]'s.
//!
//! | module | in | out |
//! |---|---|---|
//! | [`build`] | inputs | a new index |
//! | [`update`] | an index and inputs (`add`) or what to delete | its next generation |
//! | [`redecide`] | the sites an add's [`Redecision`](crate::report::Redecision) names | their pages decided again together |
//! | [`latest`] | decided pages of one URL | first of its URL, replacing, or earlier |
//! | [`sink`] | decided pages | documents of the generation being written |

mod build;
mod latest;
mod redecide;
mod sink;
mod update;

pub use build::build_index;
pub use update::{Deleted, add_to_index, delete_from_index};

//! One flag group per detector: each turns its flags into that detector's settings type
//! (defaults read from the settings' `Default`), and [`DetectorFlags`] gathers them into the
//! library's [`DetectorSettings`]. Adding a detector adds its group here and one line to
//! `detector_flags!`.

use std::path::PathBuf;
use std::sync::Arc;

use clap::Args;

use indexer::detect::bloom::BloomSettings;
use indexer::detect::hybrid::{HybridSettings, Model, ModelSource};
use indexer::detect::incremental::IncrementalSettings;
use indexer::detect::menu::MenuSettings;
use indexer::detect::none::NoSettings;
use indexer::detect::sandwich::{OnePassPeer, SandwichSettings, Unit};
use indexer::detect::table_chunk::{Cluster, TableChunkSettings};
use indexer::detect::{Choice, DetectorSettings};

use super::choice::choice;

/// Parses a share between 0 and 1.
pub fn share(text: &str) -> Result<f64, String> {
    let value: f64 = text
        .parse()
        .map_err(|_| format!("`{text}` is not a number"))?;
    if (0.0..=1.0).contains(&value) {
        Ok(value)
    } else {
        Err(format!("{value} is not between 0 and 1"))
    }
}

/// `bloom`'s flags.
#[derive(Args, Debug, Clone)]
#[command(next_help_heading = "bloom")]
pub struct BloomFlags {
    /// bloom: two offset signatures are similar when they share this share of set bits.
    #[arg(long, default_value_t = BloomSettings::default().similarity, value_parser = share)]
    bloom_similarity: f64,
    /// bloom: a word is template when this many blocks of its style cluster share its signature.
    #[arg(long, default_value_t = BloomSettings::default().min_cluster_blocks)]
    bloom_min_blocks: u32,
    /// bloom: a block is dropped when its share of template words reaches this.
    #[arg(long, default_value_t = BloomSettings::default().drop_ratio, value_parser = share)]
    bloom_drop_ratio: f64,
    /// bloom: words in fewer blocks of a style cluster than this are not looked up (chosen,
    /// not in the paper).
    #[arg(long, default_value_t = BloomSettings::default().min_word_frequency)]
    bloom_min_word_frequency: u32,
    /// bloom: distinct (style, word) pairs learned per site at most (about 40 bytes each).
    #[arg(long, default_value_t = BloomSettings::default().max_site_words)]
    bloom_max_site_words: u32,
    /// bloom: judge headings by the block they title, as in the paper (no rescue of a heading
    /// whose following block is kept).
    #[arg(long)]
    bloom_paper_headings: bool,
    /// bloom: place blocks by their index among all sibling elements (our earlier variant),
    /// not by their index in each layer of the block tree (the paper).
    #[arg(long)]
    bloom_element_positions: bool,
}

impl BloomFlags {
    fn settings(&self) -> anyhow::Result<BloomSettings> {
        Ok(BloomSettings {
            similarity: self.bloom_similarity,
            min_cluster_blocks: self.bloom_min_blocks,
            drop_ratio: self.bloom_drop_ratio,
            min_word_frequency: self.bloom_min_word_frequency,
            keep_headings_of_kept_blocks: !self.bloom_paper_headings,
            max_site_words: self.bloom_max_site_words,
            block_tree_positions: !self.bloom_element_positions,
        })
    }
}

/// `sandwich`'s flags.
#[derive(Args, Debug, Clone)]
#[command(next_help_heading = "sandwich")]
pub struct SandwichFlags {
    /// sandwich: compare pages by source lines or by HTML tokens (for pages on few lines).
    #[arg(long, value_parser = choice::<Unit>(), default_value = SandwichSettings::default().unit.name())]
    sandwich_unit: Unit,
    /// sandwich under --one-pass: the peer rule (two passes compare with the closest name of
    /// all the directory's pages).
    #[arg(long, value_parser = choice::<OnePassPeer>(), default_value = SandwichSettings::default().one_pass_peer.name())]
    sandwich_one_pass_peer: OnePassPeer,
    /// sandwich: differences explored per comparison before the rest counts as not shared.
    #[arg(long, default_value_t = SandwichSettings::default().max_cost)]
    sandwich_max_cost: u32,
    /// sandwich under --one-pass --sandwich-one-pass-peer closest-recent: pages remembered
    /// per URL directory as peers.
    #[arg(long, default_value_t = SandwichSettings::default().peers_per_directory)]
    sandwich_peers: u32,
}

impl SandwichFlags {
    fn settings(&self) -> anyhow::Result<SandwichSettings> {
        Ok(SandwichSettings {
            unit: self.sandwich_unit,
            one_pass_peer: self.sandwich_one_pass_peer,
            max_cost: self.sandwich_max_cost,
            peers_per_directory: self.sandwich_peers,
            ..SandwichSettings::default()
        })
    }
}

/// `table-chunk`'s flags.
#[derive(Args, Debug, Clone)]
#[command(next_help_heading = "table-chunk")]
pub struct TableChunkFlags {
    /// table-chunk: a chunk on at least this many pages of its cluster is template.
    #[arg(long, default_value_t = TableChunkSettings::default().min_documents)]
    table_chunk_min_documents: u32,
    /// table-chunk: how pages are clustered.
    #[arg(long, value_parser = choice::<Cluster>(), default_value = TableChunkSettings::default().cluster.name())]
    table_chunk_cluster: Cluster,
    /// table-chunk: cut chunks at layout elements (div, p, lists…) as well as table elements.
    #[arg(long)]
    table_chunk_layout_tags: bool,
    /// table-chunk: count chunks by element position and attributes as well as text.
    #[arg(long)]
    table_chunk_key_by_path: bool,
    /// table-chunk: leave images' ALT text out (the paper counts it as text).
    #[arg(long)]
    table_chunk_ignore_alt: bool,
}

impl TableChunkFlags {
    fn settings(&self) -> anyhow::Result<TableChunkSettings> {
        Ok(TableChunkSettings {
            min_documents: self.table_chunk_min_documents,
            cluster: self.table_chunk_cluster,
            layout_tags: self.table_chunk_layout_tags,
            key_by_path: self.table_chunk_key_by_path,
            image_alt: !self.table_chunk_ignore_alt,
            ..TableChunkSettings::default()
        })
    }
}

/// `incremental`'s flags.
#[derive(Args, Debug, Clone)]
#[command(next_help_heading = "incremental")]
pub struct IncrementalFlags {
    /// incremental: a text segment on at least this many pages is template.
    #[arg(long, default_value_t = IncrementalSettings::default().min_frequency)]
    incremental_min_frequency: u32,
    /// incremental: a block whose template share of text exceeds this is dropped.
    #[arg(long, default_value_t = IncrementalSettings::default().drop_ratio, value_parser = share)]
    incremental_drop_ratio: f64,
    /// incremental: Tb, pages a segment seen once survives unseen.
    #[arg(long, default_value_t = IncrementalSettings::default().base_lifetime)]
    incremental_base_lifetime: u32,
    /// incremental: N, how many times Tb a frequent segment survives unseen.
    #[arg(long, default_value_t = IncrementalSettings::default().lifetime_factor)]
    incremental_lifetime_factor: f64,
    /// incremental: text segments held per site at most.
    #[arg(long, default_value_t = IncrementalSettings::default().max_segments_per_site)]
    incremental_max_segments: u32,
    /// incremental: judge a page before counting it in its segments' frequencies (our
    /// earlier order; the paper counts it first).
    #[arg(long)]
    incremental_judge_first: bool,
    /// incremental: shrink the table after every page, as the paper does (default: every
    /// Tb/2 pages, measured the same).
    #[arg(long)]
    incremental_shrink_every_page: bool,
}

impl IncrementalFlags {
    fn settings(&self) -> anyhow::Result<IncrementalSettings> {
        Ok(IncrementalSettings {
            min_frequency: self.incremental_min_frequency,
            drop_ratio: self.incremental_drop_ratio,
            base_lifetime: self.incremental_base_lifetime.max(1),
            lifetime_factor: self.incremental_lifetime_factor.max(1.0),
            max_segments_per_site: self.incremental_max_segments,
            count_page_first: !self.incremental_judge_first,
            shrink_every_page: self.incremental_shrink_every_page,
        })
    }
}

/// `menu`'s flags.
#[derive(Args, Debug, Clone)]
#[command(next_help_heading = "menu")]
pub struct MenuFlags {
    /// menu: pages in the complete subdigraph, besides the key page (the paper's n = 4).
    #[arg(long, default_value_t = MenuSettings::default().pages, value_parser = clap::value_parser!(u32).range(1..))]
    menu_pages: u32,
    /// menu: links of a page considered, in document order.
    #[arg(long, default_value_t = MenuSettings::default().max_links)]
    menu_max_links: u32,
}

impl MenuFlags {
    fn settings(&self) -> anyhow::Result<MenuSettings> {
        Ok(MenuSettings {
            pages: self.menu_pages,
            max_links: self.menu_max_links,
            ..MenuSettings::default()
        })
    }
}

/// `hybrid`'s flags.
#[derive(Args, Debug, Clone)]
#[command(next_help_heading = "hybrid")]
pub struct HybridFlags {
    /// hybrid: a model file written by `indexer train` (default: the model built in).
    #[arg(long)]
    model: Option<PathBuf>,
    /// hybrid: keep a block when its probability of being content reaches this (default: the
    /// model's threshold).
    #[arg(long, value_parser = share)]
    hybrid_threshold: Option<f64>,
    /// hybrid: let the model drop a heading made of the page's own title words.
    #[arg(long)]
    hybrid_no_title_rule: bool,
}

impl HybridFlags {
    fn settings(&self) -> anyhow::Result<HybridSettings> {
        let model = match &self.model {
            Some(path) => ModelSource::Loaded {
                path: path.display().to_string(),
                model: Arc::new(Model::load(path)?),
            },
            None => ModelSource::BuiltIn,
        };
        Ok(HybridSettings {
            model,
            threshold: self.hybrid_threshold.map(|t| t as f32),
            keep_title_heading: !self.hybrid_no_title_rule,
            ..HybridSettings::default()
        })
    }
}

/// `none` has no flags.
#[derive(Args, Debug, Clone)]
pub struct NoFlags {}

impl NoFlags {
    fn settings(&self) -> anyhow::Result<NoSettings> {
        Ok(NoSettings {})
    }
}

/// Gathers one flag group per detector into [`DetectorFlags`], whose `settings` fills every
/// field of [`DetectorSettings`] (a detector missing here fails to compile).
macro_rules! detector_flags {
    ($($field:ident: $flags:ty),* $(,)?) => {
        /// Every detector's flags.
        #[derive(Args, Debug, Clone)]
        pub struct DetectorFlags {
            /// Keep a heading made mostly of the page's own title words (the site's shared
            /// title words removed), whatever the detector says: off by default for the
            /// detectors of the papers, always on in hybrid (see --hybrid-no-title-rule).
            #[arg(long, help_heading = "Detection")]
            keep_title_headings: bool,
            $(
                #[command(flatten)]
                $field: $flags,
            )*
        }

        impl DetectorFlags {
            /// The settings of every detector, as the flags say (a model file named is read
            /// here, so a bad one fails before anything is written).
            pub fn settings(&self) -> anyhow::Result<DetectorSettings> {
                Ok(DetectorSettings {
                    keep_title_headings: self.keep_title_headings,
                    $($field: self.$field.settings()?,)*
                })
            }
        }
    };
}

detector_flags! {
    bloom: BloomFlags,
    sandwich: SandwichFlags,
    table_chunk: TableChunkFlags,
    incremental: IncrementalFlags,
    menu: MenuFlags,
    none: NoFlags,
    hybrid: HybridFlags,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Flags {
        #[command(flatten)]
        detectors: DetectorFlags,
    }

    /// With no flags, every detector gets its library defaults.
    #[test]
    fn no_flags_give_the_library_defaults() {
        let settings = Flags::parse_from(["indexer"]).detectors.settings().unwrap();
        fn json<T: serde::Serialize>(value: &T) -> String {
            serde_json::to_string(value).unwrap()
        }
        let defaults = DetectorSettings::default();
        assert_eq!(json(&settings.bloom), json(&defaults.bloom));
        assert_eq!(json(&settings.sandwich), json(&defaults.sandwich));
        assert_eq!(json(&settings.table_chunk), json(&defaults.table_chunk));
        assert_eq!(json(&settings.incremental), json(&defaults.incremental));
        assert_eq!(json(&settings.menu), json(&defaults.menu));
    }

    /// Every choice's name parses back to itself.
    #[test]
    fn choices_round_trip() {
        use indexer::detect::Choice;
        for &unit in Unit::ALL {
            let flags = Flags::parse_from(["indexer", "--sandwich-unit", unit.name()]);
            assert_eq!(flags.detectors.settings().unwrap().sandwich.unit, unit);
        }
        for &cluster in Cluster::ALL {
            let flags = Flags::parse_from(["indexer", "--table-chunk-cluster", cluster.name()]);
            assert_eq!(
                flags.detectors.settings().unwrap().table_chunk.cluster,
                cluster
            );
        }
    }
}

//! Piece offsets (`Plan::offsets`, `Group::offsets`): the pieces of every
//! split document tile it exactly, in one plan (pack, plan_step) and across
//! the takes of the stream packer.
use flopspack::{pack, plan_step, CostModel, Overflow, PackOptions, Plan, StepOptions};
use flopspack::{StreamOptions, StreamPacker};
use std::collections::HashMap;

use crate::common::lengths;

type Spans = HashMap<i64, Vec<(i64, i64)>>;

fn add_spans(plan: &Plan, spans: &mut Spans) {
    for (g, group) in plan.groups().enumerate() {
        assert_eq!(group.offsets.len(), group.items.len());
        assert_eq!(plan.offsets(g).unwrap(), group.offsets);
        for k in 0..group.items.len() {
            spans
                .entry(group.items[k])
                .or_default()
                .push((group.offsets[k], group.tokens[k]));
        }
    }
}

/// Checks that the pieces of document i tile [0, docs[i]); returns the
/// number of documents in more than one piece.
fn check_tiling(where_: &str, spans: &mut Spans, docs: &[i64]) -> usize {
    let mut split = 0;
    for (i, length) in docs.iter().enumerate() {
        let s = spans.get_mut(&(i as i64)).expect("document placed");
        s.sort();
        let mut end = 0;
        for &(offset, tokens) in s.iter() {
            assert!(offset == end && tokens > 0, "{where_}: document {i}: {s:?}");
            end += tokens;
        }
        assert_eq!(end, *length, "{where_}: document {i}: {s:?}");
        split += usize::from(s.len() > 1);
    }
    split
}

#[test]
fn pieces_tile_split_documents_in_one_plan() {
    let model = CostModel::polynomial(0.0, 0.0, 1.0, 1e-4).unwrap();
    for seed in 0..4 {
        let docs = lengths(200, seed + 1, 3 * 4096);
        let options = PackOptions {
            overflow: Overflow::Split,
            seed,
            ..PackOptions::new(4096)
        };
        let plan = pack(&docs, &options, None).unwrap();
        let mut spans = Spans::new();
        add_spans(&plan, &mut spans);
        assert!(check_tiling("pack", &mut spans, &docs) > 0);

        let step = StepOptions {
            microbatches_per_rank: 0,
            overflow: Overflow::Split,
            seed,
            ..StepOptions::new(4, 4096)
        };
        let plan = plan_step(&docs[..60], &model, &step).unwrap();
        let mut spans = Spans::new();
        add_spans(&plan, &mut spans);
        assert!(check_tiling("plan_step", &mut spans, &docs[..60]) > 0);
    }
}

#[test]
fn stream_pieces_tile_across_takes() {
    let mut across = 0;
    for seed in 0..6 {
        let docs = lengths(300, seed + 1, 3000);
        let options = StreamOptions {
            window: 8,
            seed,
            ..StreamOptions::new(1024)
        };
        let mut packer = StreamPacker::new(&options, None).unwrap();
        let mut spans = Spans::new();
        let mut takes: HashMap<i64, usize> = HashMap::new();
        let mut take = |packer: &mut StreamPacker| {
            let plan = packer.take().unwrap();
            let mut here = Spans::new();
            add_spans(&plan, &mut here);
            for (item, s) in here {
                spans.entry(item).or_default().extend(s);
                *takes.entry(item).or_default() += 1;
            }
        };
        for chunk in docs.chunks(13) {
            packer.push(chunk).unwrap();
            take(&mut packer);
        }
        packer.flush().unwrap();
        take(&mut packer);
        check_tiling("stream", &mut spans, &docs);
        across += takes.values().filter(|&&n| n > 1).count();
    }
    assert!(across > 0, "no document's pieces came in two takes");
}

use flopspack::{CostModel, Overflow, Status, StreamOptions, StreamPacker};
use std::collections::HashMap;

use crate::common::lengths;

#[test]
fn every_token_is_placed_exactly_once() {
    for seed in 0..20 {
        let docs = lengths(400, seed, 3000);
        let options = StreamOptions {
            window: 32,
            seed,
            ..StreamOptions::new(1024)
        };
        let mut packer = StreamPacker::new(&options, None).unwrap();
        let mut tokens: HashMap<i64, i64> = HashMap::new();
        let mut drain = |packer: &mut StreamPacker| {
            let plan = packer.take().unwrap();
            for g in plan.groups() {
                let sum: i64 = g.tokens.iter().sum();
                assert!(sum == g.info.real_tokens && sum <= 1024 && g.info.computed_tokens == 1024);
                assert_eq!(g.slot, None);
                for (item, t) in g.items.iter().zip(g.tokens) {
                    *tokens.entry(*item).or_default() += t;
                }
            }
        };
        for chunk in docs.chunks(57) {
            packer.push(chunk).unwrap();
            drain(&mut packer);
        }
        packer.flush().unwrap();
        drain(&mut packer);
        for (i, l) in docs.iter().enumerate() {
            assert_eq!(tokens[&(i as i64)], *l, "seed {seed} document {i}");
        }
        let t = packer.totals();
        assert_eq!((t.documents_pushed, t.pieces_held), (400, 0));
    }
}

#[test]
fn save_restore_resumes_identically_and_errors_are_reported() {
    let docs = lengths(300, 5, 3000);
    let options = StreamOptions {
        window: 40,
        seed: 9,
        overflow: Overflow::Truncate,
        ..StreamOptions::new(2048)
    };
    let mut a = StreamPacker::new(&options, None).unwrap();
    a.push(&docs[..150]).unwrap();
    a.take().unwrap();
    let state = a.save().unwrap();
    let mut b = StreamPacker::restore(&state, None).unwrap();
    let mut out = Vec::new();
    for p in [&mut a, &mut b] {
        p.push(&docs[150..]).unwrap();
        p.flush().unwrap();
        let plan = p.take().unwrap();
        out.push(
            plan.groups()
                .map(|g| (g.items.to_vec(), g.tokens.to_vec()))
                .collect::<Vec<_>>(),
        );
    }
    assert_eq!(out[0], out[1]);
    let e = StreamPacker::restore(&state[..state.len() - 3], None)
        .err()
        .unwrap();
    assert_eq!(e.status(), Status::InvalidArgument);
    assert!(e.message().contains("corrupted"), "{e}");
    let strict = StreamOptions {
        overflow: Overflow::Error,
        ..StreamOptions::new(100)
    };
    let mut s = StreamPacker::new(&strict, None).unwrap();
    assert!(s.push(&[50, 101]).unwrap_err().message().contains("101"));
    assert_eq!(s.totals().documents_pushed, 0);
    assert!(StreamPacker::new(&StreamOptions::new(0), None).is_err());
}

#[test]
fn custom_model_callback_outlives_the_model_inside_a_packer() {
    let model = CostModel::custom(|l| Ok(l.iter().sum::<i64>() as f64)).unwrap();
    let options = StreamOptions {
        window: 4,
        ..StreamOptions::new(100)
    };
    let mut packer = StreamPacker::new(&options, Some(&model)).unwrap();
    drop(model);
    packer.push(&[30; 6]).unwrap();
    packer.flush().unwrap();
    let plan = packer.take().unwrap();
    assert_eq!(plan.metrics().total_cost, 180.0);
    assert!(format!("{plan:?}").starts_with("Plan { groups:"));
    fn assert_send<T: Send>() {}
    assert_send::<StreamPacker>();
}

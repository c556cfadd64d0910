use flopspack::{
    balance, pack, BalanceAlgorithm, BalanceOptions, Overflow, PackAlgorithm, PackOptions, Status,
};

use crate::common::lengths;

#[test]
fn pack_places_every_token_once_within_capacity() {
    for seed in 0..5 {
        for algorithm in [
            PackAlgorithm::BestFitDecreasing,
            PackAlgorithm::FirstFitDecreasing,
            PackAlgorithm::NextFit,
            PackAlgorithm::ShuffledFirstFit,
        ] {
            let docs = lengths(300, seed + 1, 5000);
            let options = PackOptions {
                algorithm,
                overflow: Overflow::Split,
                seed,
                ..PackOptions::new(4096)
            };
            let plan = pack(&docs, &options, None).unwrap();
            let mut tokens = vec![0i64; docs.len()];
            for g in plan.groups() {
                assert!(g.info.real_tokens <= 4096);
                for (i, t) in g.items.iter().zip(g.tokens) {
                    tokens[*i as usize] += t;
                }
            }
            assert_eq!(tokens, docs, "seed {seed} {algorithm:?}");
        }
    }
    let e = pack(&[10, 5000], &PackOptions::new(4096), None).unwrap_err();
    assert_eq!(e.status(), Status::InvalidArgument);
    assert!(e.message().contains("5000"), "{e}");
}

#[test]
fn balance_covers_items_and_honours_the_cap() {
    let costs = [5.0, 4.0, 3.0, 3.0, 2.0, 1.0];
    let tokens = [50, 40, 30, 30, 20, 10];
    let options = BalanceOptions {
        max_tokens_per_group: 95,
        ..BalanceOptions::new(2)
    };
    let plan = balance(&costs, Some(&tokens), &options).unwrap();
    let mut all: Vec<i64> = plan.groups().flat_map(|g| g.items.to_vec()).collect();
    all.sort_unstable();
    assert_eq!(all, vec![0, 1, 2, 3, 4, 5]);
    for g in plan.groups() {
        assert!(g.items.iter().map(|&i| tokens[i as usize]).sum::<i64>() <= 95);
    }
    let e = balance(&costs, Some(&[1, 2]), &BalanceOptions::new(2)).unwrap_err();
    assert!(e.message().contains("tokens has 2 entries for 6 costs"));
    let tight = BalanceOptions {
        max_tokens_per_group: 60,
        ..options
    };
    assert_eq!(
        balance(&costs, Some(&tokens), &tight).unwrap_err().status(),
        Status::Infeasible
    );
    let equal = BalanceOptions {
        equal_count: true,
        algorithm: BalanceAlgorithm::KarmarkarKarp,
        ..BalanceOptions::new(3)
    };
    let plan = balance(
        &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0],
        None,
        &equal,
    )
    .unwrap();
    let mut sizes: Vec<usize> = plan.groups().map(|g| g.items.len()).collect();
    sizes.sort_unstable();
    assert_eq!(sizes, vec![3, 3, 4]);
}

//! Row equations with variables in every placement.

use super::*;

/// A row of `beg` and `end` fresh dim variables around a fresh row
/// variable (or closed when `open` is false).
fn row(s: &mut Solver, beg: usize, open: bool, end: usize) -> Row {
    Row {
        beg: s.fresh_dims(beg),
        var: open.then(|| s.fresh_row()),
        end: s.fresh_dims(end),
    }
}

/// Closes the remaining row variables of `rows` to no more axes.
fn close_rows(s: &mut Solver, rows: &[&Row]) {
    let o = Origin::new(0, "closing");
    while let Some(v) = rows.iter().find_map(|r| s.open_var(r)) {
        s.solve_row(v, Row::default(), &o).unwrap();
        s.propagate().unwrap();
    }
}

/// `a = b` for every placement of fixed dims and row variables on both
/// sides: afterwards both sides are the same row, and, closed, have the
/// fewest axes that hold both sides' fixed dims (nothing dropped).
#[test]
fn row_eq_every_placement() {
    let shapes: Vec<(usize, bool, usize)> = (0..3)
        .flat_map(|b| (0..3).flat_map(move |e| [(b, true, e), (b, false, e)]))
        .filter(|&(b, open, _)| open || b == 0)
        .collect();
    let mut cases = 0;
    for &(ab, ao, ae) in &shapes {
        for &(bb, bo, be) in &shapes {
            let mut s = Solver::new();
            let a = row(&mut s, ab, ao, ae);
            let b = row(&mut s, bb, bo, be);
            let want = match (ao, bo) {
                (true, true) => Some(ab.max(bb) + ae.max(be)),
                (true, false) => (ab + ae <= be).then_some(be),
                (false, true) => (bb + be <= ae).then_some(ae),
                (false, false) => (ae == be).then_some(ae),
            };
            s.add(
                Constraint::RowEq(a.clone(), b.clone()),
                Origin::new(0, "test"),
            );
            let solved = s.propagate();
            let Some(len) = want else {
                let e = solved.expect_err(&format!("[{a}] = [{b}] has no solution"));
                assert!(e.message.contains("number of axes mismatch"), "{e}");
                continue;
            };
            solved.unwrap_or_else(|e| panic!("[{a}] = [{b}]: {e}"));
            let (ra, rb) = (s.subst_row(&a), s.subst_row(&b));
            assert_eq!(ra, rb, "[{a}] = [{b}]");
            close_rows(&mut s, &[&a, &b]);
            let (ra, rb) = (s.subst_row(&a), s.subst_row(&b));
            assert_eq!(ra, rb, "[{a}] = [{b}] closed");
            assert_eq!(ra.var, None);
            assert_eq!(ra.end.len(), len, "[{a}] = [{b}] closed to [{ra}]");
            // Every fixed dim of both sides is in the solution.
            for d in a.dims().chain(b.dims()) {
                let d = s.subst_dim(d);
                assert!(
                    ra.end.contains(&d),
                    "[{a}] = [{b}]: {d} dropped from [{ra}]"
                );
            }
            cases += 1;
        }
    }
    assert!(cases > 50, "{cases}");
}

/// The least solution with known sizes on both sides, in both orders.
#[test]
fn row_eq_both_sides_open() {
    // a's left and right parts, b's, and the solution.
    type Case = (
        &'static [u64],
        &'static [u64],
        &'static [u64],
        &'static [u64],
        &'static [u64],
    );
    let cases: &[Case] = &[
        // 2,... = ...,3
        (&[2], &[], &[], &[3], &[2, 3]),
        // ...,3 = 2,...
        (&[], &[3], &[2], &[], &[2, 3]),
        // 2,...,4 = ...,3,4
        (&[2], &[4], &[], &[3, 4], &[2, 3, 4]),
        // 2,3,... = 2,...,5
        (&[2, 3], &[], &[2], &[5], &[2, 3, 5]),
        // 1,2,... = ...,3
        (&[1, 2], &[], &[], &[3], &[1, 2, 3]),
    ];
    let known = |v: &[u64]| v.iter().map(|&n| Dim::size(n)).collect::<Vec<_>>();
    for &(ab, ae, bb, be, want) in cases {
        let mut s = Solver::new();
        let a = Row {
            beg: known(ab),
            var: Some(s.fresh_row()),
            end: known(ae),
        };
        let b = Row {
            beg: known(bb),
            var: Some(s.fresh_row()),
            end: known(be),
        };
        s.add(
            Constraint::RowEq(a.clone(), b.clone()),
            Origin::new(0, "test"),
        );
        s.propagate().unwrap();
        close_rows(&mut s, &[&a, &b]);
        let got = s.subst_row(&a);
        assert_eq!(got, s.subst_row(&b), "[{a}] = [{b}]");
        assert_eq!(got, Row::closed(known(want)), "[{a}] = [{b}]");
    }
}

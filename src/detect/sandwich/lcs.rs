//! Longest common subsequence of two `u64` sequences using Myers' O((N+M)·D)
//! difference algorithm in linear space, plus a capped Levenshtein distance.
//!
//! Reference: E. W. Myers, "An O(ND) Difference Algorithm and Its
//! Variations", Algorithmica 1 (1986), section 4b (linear space refinement).

/// Which elements of two sequences belong to one common subsequence; see
/// [`common_subsequence`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommonSubsequence {
    /// `in_a[i]` is true iff `a[i]` is matched; `in_a.len() == a.len()`.
    pub in_a: Vec<bool>,
    /// `in_b[j]` is true iff `b[j]` is matched; `in_b.len() == b.len()`.
    pub in_b: Vec<bool>,
    /// True iff no search was abandoned because of `max_cost`; then the
    /// matched elements form a longest common subsequence.
    pub exact: bool,
}

/// Which elements of `a` belong to one longest common subsequence of `a` and `b`.
///
/// The i-th `true` of `in_a` is paired with the i-th `true` of `in_b`; paired
/// elements are equal, so the pairs form a common subsequence.
///
/// Uses Myers' linear-space divide and conquer (common prefix and suffix
/// stripped, then a "middle snake" found by a forward and a reverse search),
/// driven by an explicit work stack. Time is O((N+M)·min(D, `max_cost`)),
/// where D is the insert/delete edit distance (N+M−2·LCS); extra space is
/// O(N+M).
///
/// `max_cost` bounds the edit distance a middle-snake search may explore.
/// A sub-problem whose edit distance exceeds `max_cost` is given up: its
/// elements are left unmatched and `exact` is false. Because the distances of
/// the two halves sum to that of their parent, this only happens for the
/// whole input after its common prefix and suffix are removed, so the result
/// is either an exact LCS or just that common prefix and suffix.
pub fn common_subsequence(a: &[u64], b: &[u64], max_cost: usize) -> CommonSubsequence {
    let mut in_a = vec![false; a.len()];
    let mut in_b = vec![false; b.len()];
    let mut exact = true;

    // Largest half-distance any search below can reach; sub-problems are
    // never larger than the whole input.
    let d_max = max_cost.min(a.len() + b.len()).div_ceil(2);
    let mut ws = Workspace::new(d_max);

    // Each item is a sub-problem (a[a0..a1], b[b0..b1]); items are disjoint
    // rectangles of the edit graph, so marks never conflict.
    let mut stack = vec![(0, a.len(), 0, b.len())];
    while let Some((mut a0, mut a1, mut b0, mut b1)) = stack.pop() {
        while a0 < a1 && b0 < b1 && a[a0] == b[b0] {
            in_a[a0] = true;
            in_b[b0] = true;
            a0 += 1;
            b0 += 1;
        }
        while a0 < a1 && b0 < b1 && a[a1 - 1] == b[b1 - 1] {
            a1 -= 1;
            b1 -= 1;
            in_a[a1] = true;
            in_b[b1] = true;
        }
        if a0 == a1 || b0 == b1 {
            continue; // Nothing left in common.
        }
        let (sa, sb) = (&a[a0..a1], &b[b0..b1]);
        let Some(s) = middle_snake(sa, sb, max_cost, &mut ws) else {
            exact = false;
            continue;
        };
        // Both halves must be strictly smaller than the parent, or the loop
        // would not terminate. This follows from the search (each half has a
        // smaller edit distance); the check only guards against a bug.
        let shrinks = s.x0 + s.y0 < sa.len() + sb.len() && s.x1 + s.y1 > 0;
        debug_assert!(shrinks, "middle snake does not split the problem");
        if !shrinks {
            exact = false;
            continue;
        }
        for t in 0..s.x1 - s.x0 {
            in_a[a0 + s.x0 + t] = true;
            in_b[b0 + s.y0 + t] = true;
        }
        stack.push((a0 + s.x1, a1, b0 + s.y1, b1));
        stack.push((a0, a0 + s.x0, b0, b0 + s.y0));
    }

    CommonSubsequence { in_a, in_b, exact }
}

/// Levenshtein distance between two strings, counted in chars; stops early
/// and returns `cap` when the distance exceeds `cap`.
///
/// Exactly: returns `min(distance, cap)`. Uses two rows of O(len(b)) space.
pub fn edit_distance(a: &str, b: &str, cap: usize) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    if a.len().abs_diff(b.len()) >= cap {
        return cap; // The length difference alone reaches the cap.
    }
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, &ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        let mut row_min = cur[0];
        for (j, &cb) in b.iter().enumerate() {
            let v = (prev[j] + usize::from(ca != cb))
                .min(prev[j + 1] + 1)
                .min(cur[j] + 1);
            cur[j + 1] = v;
            row_min = row_min.min(v);
        }
        // Row minima never decrease, so the final distance is at least this.
        if row_min >= cap {
            return cap;
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()].min(cap)
}

/// Marks a diagonal not reached (yet) in the current search.
const NONE: isize = -1;

/// A snake `(x0, y0) -> (x1, y1)` of equal elements, `x1 - x0 == y1 - y0`.
struct Snake {
    x0: usize,
    y0: usize,
    x1: usize,
    y1: usize,
}

/// Furthest-reaching points of one search direction, indexed by diagonal.
struct Frontier {
    /// Furthest x reached on each diagonal (end of its last snake), or `NONE`.
    end: Vec<isize>,
    /// x where that last snake began, right after its final edit.
    start: Vec<isize>,
}

/// Buffers reused by every middle-snake search.
struct Workspace {
    fwd: Frontier,
    rev: Frontier,
    /// Index of diagonal 0 in the frontier vectors.
    off: isize,
}

impl Workspace {
    fn new(d_max: usize) -> Self {
        let len = 2 * d_max + 1;
        let frontier = || Frontier {
            end: vec![NONE; len],
            start: vec![NONE; len],
        };
        Workspace {
            fwd: frontier(),
            rev: frontier(),
            off: d_max as isize,
        }
    }
}

/// Finds a snake lying on a shortest edit path of `a` to `b`, such that the
/// edit distances before and after it are both smaller than the whole (when
/// the whole is at least 2). Returns `None` if the distance exceeds
/// `max_cost`. Requires `a` and `b` non-empty.
///
/// Coordinates: x indexes `a`, y indexes `b`, diagonal k = x − y. The reverse
/// search runs the same forward rule on the reversed sequences, so its
/// x' = n − x, y' = m − y and diagonal k' = delta − k, where delta = n − m.
fn middle_snake(a: &[u64], b: &[u64], max_cost: usize, ws: &mut Workspace) -> Option<Snake> {
    let (n, m) = (a.len() as isize, b.len() as isize);
    let delta = n - m;
    // The edit distance has the parity of delta; an odd distance 2d−1 is first
    // seen after forward step d, an even one 2d after reverse step d.
    let odd = delta % 2 != 0;
    let cap = max_cost.min(a.len() + b.len()) as isize;
    let off = ws.off;
    let at = |k: isize| (k + off) as usize;

    for d in 0..=(cap + 1) / 2 {
        advance(&mut ws.fwd, off, d, n, m, |x, y| a[x] == b[y]);
        if odd && d >= 1 && 2 * d - 1 <= cap {
            for k in (-d..=d).step_by(2) {
                let kr = delta - k;
                if kr.abs() > d - 1 {
                    continue;
                }
                let (xf, xr) = (ws.fwd.end[at(k)], ws.rev.end[at(kr)]);
                if xf != NONE && xr != NONE && xf + xr >= n {
                    let x0 = ws.fwd.start[at(k)];
                    return Some(Snake {
                        x0: x0 as usize,
                        y0: (x0 - k) as usize,
                        x1: xf as usize,
                        y1: (xf - k) as usize,
                    });
                }
            }
        }

        let (ra, rb) = (a.len() - 1, b.len() - 1);
        advance(&mut ws.rev, off, d, n, m, |x, y| a[ra - x] == b[rb - y]);
        if !odd && 2 * d <= cap {
            for kr in (-d..=d).step_by(2) {
                let k = delta - kr;
                if k.abs() > d {
                    continue;
                }
                let (xf, xr) = (ws.fwd.end[at(k)], ws.rev.end[at(kr)]);
                if xf != NONE && xr != NONE && xf + xr >= n {
                    let xs = ws.rev.start[at(kr)];
                    return Some(Snake {
                        x0: (n - xr) as usize,
                        y0: (m - (xr - kr)) as usize,
                        x1: (n - xs) as usize,
                        y1: (m - (xs - kr)) as usize,
                    });
                }
            }
        }
    }
    None
}

/// Extends frontier `f` from d−1 to d edits on an n×m edit graph (for d = 0,
/// initialises it). `same(x, y)` says whether the x-th element of the first
/// sequence equals the y-th of the second, in this direction's order.
///
/// Each diagonal keeps the furthest point reachable with at most d edits
/// (of d's parity) along paths that stay inside the grid, so every stored
/// point is real and values never move backwards, and a snake is only
/// scanned beyond the previous end on its diagonal.
fn advance(
    f: &mut Frontier,
    off: isize,
    d: isize,
    n: isize,
    m: isize,
    same: impl Fn(usize, usize) -> bool,
) {
    for k in (-d..=d).step_by(2) {
        let i = (k + off) as usize;
        let mut cand = NONE;
        if d == 0 {
            cand = 0;
        } else {
            if k < d {
                // Down move from diagonal k+1 (needs y < m before it).
                let x = f.end[i + 1];
                if x != NONE && x - (k + 1) < m {
                    cand = x;
                }
            }
            if k > -d {
                // Right move from diagonal k−1 (needs x < n before it).
                let x = f.end[i - 1];
                if x != NONE && x < n && x + 1 > cand {
                    cand = x + 1;
                }
            }
        }
        // The slot holds step d−2's value only if that step wrote it.
        let (old_end, old_start) = if k.abs() <= d - 2 {
            (f.end[i], f.start[i])
        } else {
            (NONE, NONE)
        };
        if cand <= old_end {
            // Also covers cand == NONE. A snake from cand would stop at
            // old_end anyway, since old_end ends a maximal snake.
            f.end[i] = old_end;
            f.start[i] = old_start;
        } else {
            let (mut x, mut y) = (cand, cand - k);
            while x < n && y < m && same(x as usize, y as usize) {
                x += 1;
                y += 1;
            }
            f.end[i] = x;
            f.start[i] = cand;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Deterministic xorshift64 generator for tests.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            let mut x = self.0;
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            self.0 = x;
            x
        }

        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
    }

    fn seq(s: &str) -> Vec<u64> {
        s.bytes().map(u64::from).collect()
    }

    /// Asserts the masks pair up equal elements; returns the match count.
    fn check_valid(a: &[u64], b: &[u64], r: &CommonSubsequence) -> usize {
        assert_eq!(r.in_a.len(), a.len());
        assert_eq!(r.in_b.len(), b.len());
        let ia: Vec<usize> = (0..a.len()).filter(|&i| r.in_a[i]).collect();
        let ib: Vec<usize> = (0..b.len()).filter(|&j| r.in_b[j]).collect();
        assert_eq!(ia.len(), ib.len(), "mask counts differ");
        for (&i, &j) in ia.iter().zip(&ib) {
            assert_eq!(a[i], b[j], "paired elements differ at a[{i}], b[{j}]");
        }
        ia.len()
    }

    fn dp_lcs(a: &[u64], b: &[u64]) -> usize {
        let mut prev = vec![0usize; b.len() + 1];
        let mut cur = vec![0usize; b.len() + 1];
        for &x in a {
            for (j, &y) in b.iter().enumerate() {
                cur[j + 1] = if x == y {
                    prev[j] + 1
                } else {
                    prev[j + 1].max(cur[j])
                };
            }
            std::mem::swap(&mut prev, &mut cur);
        }
        prev[b.len()]
    }

    fn random_seq(rng: &mut Rng, len: usize, alphabet: u64) -> Vec<u64> {
        (0..len).map(|_| rng.below(alphabet)).collect()
    }

    /// `a` with `edits` random substitutions, insertions and deletions.
    fn mutate(rng: &mut Rng, a: &[u64], edits: usize) -> Vec<u64> {
        let mut b = a.to_vec();
        for _ in 0..edits {
            if b.is_empty() {
                b.push(rng.next());
                continue;
            }
            let pos = rng.below(b.len() as u64) as usize;
            match rng.below(3) {
                0 => b[pos] = rng.next(),
                1 => b.insert(pos, rng.next()),
                _ => {
                    b.remove(pos);
                }
            }
        }
        b
    }

    #[test]
    fn myers_paper_example() {
        let (a, b) = (seq("ABCABBA"), seq("CBABAC"));
        let r = common_subsequence(&a, &b, usize::MAX);
        assert!(r.exact);
        assert_eq!(check_valid(&a, &b, &r), 4);
    }

    #[test]
    fn identical_inputs() {
        let a = seq("the quick brown fox");
        let r = common_subsequence(&a, &a, 0);
        assert!(r.exact);
        assert!(r.in_a.iter().all(|&m| m));
        assert!(r.in_b.iter().all(|&m| m));
    }

    #[test]
    fn empty_inputs() {
        let a = seq("abc");
        let r = common_subsequence(&a, &[], 0);
        assert!(r.exact);
        assert_eq!(r.in_a, vec![false; 3]);
        assert!(r.in_b.is_empty());
        let r = common_subsequence(&[], &a, 0);
        assert!(r.exact);
        assert!(r.in_a.is_empty());
        assert_eq!(r.in_b, vec![false; 3]);
        let r = common_subsequence(&[], &[], 0);
        assert!(r.exact && r.in_a.is_empty() && r.in_b.is_empty());
    }

    #[test]
    fn disjoint_inputs() {
        let (a, b) = (seq("abcd"), seq("wxyz"));
        let r = common_subsequence(&a, &b, usize::MAX);
        assert!(r.exact);
        assert_eq!(check_valid(&a, &b, &r), 0);
    }

    #[test]
    fn single_insertions_and_deletions() {
        let a = seq("aaaa");
        let b = seq("aaa");
        let r = common_subsequence(&a, &b, 1);
        assert!(r.exact);
        assert_eq!(check_valid(&a, &b, &r), 3);
        let (a, b) = (seq("xabc"), seq("abcx"));
        let r = common_subsequence(&a, &b, 2);
        assert!(r.exact);
        assert_eq!(check_valid(&a, &b, &r), 3);
    }

    #[test]
    fn random_pairs_match_dp() {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        for _ in 0..4000 {
            let alphabet = 2 + rng.below(5);
            let la = rng.below(41) as usize;
            let lb = rng.below(41) as usize;
            let a = random_seq(&mut rng, la, alphabet);
            let b = random_seq(&mut rng, lb, alphabet);
            let r = common_subsequence(&a, &b, usize::MAX);
            assert!(r.exact);
            assert_eq!(check_valid(&a, &b, &r), dp_lcs(&a, &b), "{a:?} / {b:?}");
        }
    }

    #[test]
    fn random_similar_pairs_match_dp() {
        let mut rng = Rng(12345);
        for _ in 0..1000 {
            let alphabet = 2 + rng.below(5);
            let la = 1 + rng.below(60) as usize;
            let a = random_seq(&mut rng, la, alphabet);
            let edits = rng.below(6) as usize;
            let b: Vec<u64> = mutate(&mut rng, &a, edits)
                .into_iter()
                .map(|v| v % alphabet)
                .collect();
            let r = common_subsequence(&a, &b, usize::MAX);
            assert!(r.exact);
            assert_eq!(check_valid(&a, &b, &r), dp_lcs(&a, &b), "{a:?} / {b:?}");
        }
    }

    #[test]
    fn small_max_cost() {
        let mut rng = Rng(0xDEAD_BEEF);
        let (mut gave_up, mut exact) = (0, 0);
        for _ in 0..3000 {
            let alphabet = 2 + rng.below(5);
            let la = rng.below(41) as usize;
            let lb = rng.below(41) as usize;
            let a = random_seq(&mut rng, la, alphabet);
            let b = random_seq(&mut rng, lb, alphabet);
            let max_cost = rng.below(12) as usize;
            let r = common_subsequence(&a, &b, max_cost);
            let got = check_valid(&a, &b, &r);
            let lcs = dp_lcs(&a, &b);
            let distance = a.len() + b.len() - 2 * lcs;
            // Within budget the result must be exact. Over budget it may still
            // be exact when stripping the common prefix and suffix empties a
            // side, since no search is needed then.
            if distance <= max_cost {
                assert!(r.exact, "{a:?} / {b:?} / {max_cost}");
            }
            if r.exact {
                assert_eq!(got, lcs);
                exact += 1;
            } else {
                assert!(got <= lcs);
                gave_up += 1;
            }
        }
        assert!(gave_up > 100 && exact > 100, "{gave_up} {exact}");
    }

    #[test]
    fn gave_up_keeps_prefix_and_suffix() {
        let (a, b) = (seq("123xyz45"), seq("123uvw45"));
        let r = common_subsequence(&a, &b, 5);
        assert!(!r.exact);
        assert_eq!(check_valid(&a, &b, &r), 5);
        let r = common_subsequence(&a, &b, 6);
        assert!(r.exact);
        assert_eq!(check_valid(&a, &b, &r), 5);
        let (a, b) = (seq("ab"), seq("ba"));
        assert!(!common_subsequence(&a, &b, 1).exact);
        assert!(common_subsequence(&a, &b, 2).exact);
    }

    #[test]
    fn large_near_identical() {
        let mut rng = Rng(7);
        let a: Vec<u64> = (0..200_000).map(|_| rng.next()).collect();
        let b = mutate(&mut rng, &a, 50);
        let r = common_subsequence(&a, &b, usize::MAX);
        assert!(r.exact);
        assert!(check_valid(&a, &b, &r) >= 200_000 - 100);
    }

    #[test]
    fn fifty_thousand_with_hundred_differences() {
        let mut rng = Rng(99);
        let a: Vec<u64> = (0..50_000).map(|_| rng.below(1000)).collect();
        let mut b = a.clone();
        for _ in 0..100 {
            let pos = rng.below(b.len() as u64) as usize;
            b[pos] = 1000 + rng.below(1000);
        }
        let r = common_subsequence(&a, &b, 1000);
        assert!(r.exact);
        assert!(check_valid(&a, &b, &r) >= 50_000 - 100);
    }

    #[test]
    fn million_elements_gives_up_cleanly() {
        let a: Vec<u64> = (0..1_000_000).collect();
        let mut b: Vec<u64> = a.iter().rev().copied().collect();
        b[0] = 0; // A common prefix element, then a reversed body.
        let r = common_subsequence(&a, &b, 20);
        assert!(!r.exact);
        assert_eq!(check_valid(&a, &b, &r), 1);
    }

    #[test]
    fn million_elements_exact() {
        let mut rng = Rng(2024);
        let a: Vec<u64> = (0..1_000_000).map(|_| rng.below(50)).collect();
        let b = mutate(&mut rng, &a, 60);
        let r = common_subsequence(&a, &b, usize::MAX);
        assert!(r.exact);
        assert!(check_valid(&a, &b, &r) >= 1_000_000 - 60);
    }

    #[test]
    fn edit_distance_examples() {
        assert_eq!(edit_distance("kitten", "sitting", 100), 3);
        assert_eq!(edit_distance("", "", 5), 0);
        assert_eq!(edit_distance("", "abc", 5), 3);
        assert_eq!(edit_distance("abc", "", 5), 3);
        assert_eq!(edit_distance("same", "same", 5), 0);
        assert_eq!(edit_distance("héllo", "hello", 5), 1);
        assert_eq!(edit_distance("flaw", "lawn", 5), 2);
    }

    #[test]
    fn edit_distance_cap() {
        assert_eq!(edit_distance("kitten", "sitting", 3), 3);
        assert_eq!(edit_distance("kitten", "sitting", 2), 2);
        assert_eq!(edit_distance("kitten", "sitting", 0), 0);
        assert_eq!(edit_distance("a", "abcdefgh", 4), 4);
        assert_eq!(edit_distance("abcdef", "uvwxyz", 4), 4);
        assert_eq!(edit_distance("", "", 0), 0);
    }

    #[test]
    fn edit_distance_random_against_uncapped() {
        let mut rng = Rng(31337);
        for _ in 0..500 {
            let la = rng.below(12) as usize;
            let lb = rng.below(12) as usize;
            let a: String = (0..la)
                .map(|_| (b'a' + rng.below(3) as u8) as char)
                .collect();
            let b: String = (0..lb)
                .map(|_| (b'a' + rng.below(3) as u8) as char)
                .collect();
            let full = edit_distance(&a, &b, usize::MAX);
            for cap in 0..14 {
                assert_eq!(edit_distance(&a, &b, cap), full.min(cap));
            }
        }
    }
}

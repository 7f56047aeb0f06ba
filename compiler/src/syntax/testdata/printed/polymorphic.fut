def id 't (x: t) : t = x

def const 'a 'b (x: a) (_: b) : a = x

def apply 'a '^b (f: a -> b) (x: a) : b = f x

def twice '^a (f: a -> a) : a -> a = f >-> f

def pair 'a 'b (x: a) (y: b) : (a, b) = (x, y)

def firsts [n] 'a 'b (xs: [n](a, b)) : [n]a = map (.0) xs

type pair_of 'a = (a, a)

type~ dynarray 't = ?[k].[k]t

type vec [n] 't = [n]t

def dot [n] (a: vec [n] f32) (b: vec [n] f32) : f32 = f32.sum (map2 (*) a b)

def filtered [n] (p: i32 -> bool) (xs: [n]i32) : ?[m].[m]i32 = filter p xs

def uniq (xs: *[]f32) : *[]f32 = xs

def named (f: (x: i64) -> [x]i32) = f 3

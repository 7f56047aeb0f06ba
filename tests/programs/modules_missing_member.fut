-- A module ascribed a module type must declare what the module type specifies.
-- ==
-- error: the module lacks `add`, which its module type specifies

module type addable = { type t val zero: t val add: t -> t -> t }

module m : addable = { type t = i32 def zero: t = 0 }

entry main (x: i32) = x

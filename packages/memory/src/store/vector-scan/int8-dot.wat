;; One pass of the quantized vector index: for each of `count` rows of `dims` int8 values (dims a
;; multiple of 16, rows back to back from `rows`), out[i] = f32(dot(row_i, query)) * scales[i], with
;; the query as `dims` int16 values. i32x4.dot_i16x8_s does 8 multiply-adds per instruction; the
;; caller bounds the query's scale so no lane's running sum can overflow.
(module
  (memory (export "memory") 1)
  (func (export "scan")
    (param $rows i32) (param $count i32) (param $dims i32)
    (param $query i32) (param $scales i32) (param $out i32)
    (local $i i32) (local $j i32) (local $row i32) (local $q i32)
    (local $acc v128) (local $r v128)
    (local.set $row (local.get $rows))
    (block $done
      (loop $each_row
        (br_if $done (i32.ge_u (local.get $i) (local.get $count)))
        (local.set $acc (v128.const i32x4 0 0 0 0))
        (local.set $j (i32.const 0))
        (local.set $q (local.get $query))
        (block $row_done
          (loop $each_block
            (br_if $row_done (i32.ge_u (local.get $j) (local.get $dims)))
            (local.set $r (v128.load (i32.add (local.get $row) (local.get $j))))
            (local.set $acc
              (i32x4.add (local.get $acc)
                (i32x4.dot_i16x8_s
                  (i16x8.extend_low_i8x16_s (local.get $r))
                  (v128.load (local.get $q)))))
            (local.set $acc
              (i32x4.add (local.get $acc)
                (i32x4.dot_i16x8_s
                  (i16x8.extend_high_i8x16_s (local.get $r))
                  (v128.load offset=16 (local.get $q)))))
            (local.set $j (i32.add (local.get $j) (i32.const 16)))
            (local.set $q (i32.add (local.get $q) (i32.const 32)))
            (br $each_block)))
        (f32.store
          (i32.add (local.get $out) (i32.shl (local.get $i) (i32.const 2)))
          (f32.mul
            (f32.convert_i32_s
              (i32.add
                (i32.add (i32x4.extract_lane 0 (local.get $acc)) (i32x4.extract_lane 1 (local.get $acc)))
                (i32.add (i32x4.extract_lane 2 (local.get $acc)) (i32x4.extract_lane 3 (local.get $acc)))))
            (f32.load (i32.add (local.get $scales) (i32.shl (local.get $i) (i32.const 2))))))
        (local.set $row (i32.add (local.get $row) (local.get $dims)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $each_row)))))

// einsum for one or two operands. Each operand first takes its diagonals
// (repeated letters) and sums out letters used nowhere else; a two-operand
// contraction is then rearranged into one batched matrix product.

#include <map>
#include <string>

#include <kindling/factory.hpp>
#include <kindling/join.hpp>
#include <kindling/linalg.hpp>
#include <kindling/ops.hpp>

namespace kindling {
namespace {

struct Term {
  Tensor t;
  std::string letters;  // one per dim, all distinct after take_diagonals
};

// "ii" -> the diagonal, as a strided view (stride = sum of the two strides).
Term take_diagonals(Tensor t, std::string letters, std::size_t operand) {
  for (std::size_t i = 0; i < letters.size(); ++i) {
    for (std::size_t j = letters.size(); j-- > i + 1;) {
      if (letters[j] != letters[i]) continue;
      KINDLING_CHECK(t.sizes()[i] == t.sizes()[j], "einsum(): subscript ", letters[i], " is repeated for operand ",
                     operand, " but the sizes don't match, ", t.sizes()[j], " != ", t.sizes()[i]);
      Shape sizes = t.sizes().vec(), strides = t.strides().vec();
      strides[i] += strides[j];
      sizes.erase(sizes.begin() + static_cast<std::ptrdiff_t>(j));
      strides.erase(strides.begin() + static_cast<std::ptrdiff_t>(j));
      t = t.as_strided(sizes, strides, t.storage_offset());
      letters.erase(j, 1);
    }
  }
  return {t, letters};
}

// Sums out the letters for which keep() is false.
Term sum_out(const Term& term, const std::function<bool(char)>& keep) {
  Shape dims;
  std::string kept;
  for (std::size_t i = 0; i < term.letters.size(); ++i) {
    if (keep(term.letters[i]))
      kept += term.letters[i];
    else
      dims.push_back(static_cast<std::int64_t>(i));
  }
  if (dims.empty()) return term;
  return {sum(term.t, dims, false), kept};
}

Shape positions(const std::string& letters, const std::string& order) {
  Shape p;
  for (char c : order) p.push_back(static_cast<std::int64_t>(letters.find(c)));
  return p;
}

}  // namespace

Tensor einsum(std::string_view equation, const TensorList& operands) {
  std::string eq;
  for (char c : equation)
    if (c != ' ') eq += c;
  const auto arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  std::vector<std::string> terms(1);
  for (char c : lhs) {
    if (c == ',')
      terms.emplace_back();
    else
      terms.back() += c;
  }
  KINDLING_CHECK(terms.size() <= operands.size(),
                 "einsum(): fewer operands were provided than specified in the equation");
  KINDLING_CHECK(terms.size() >= operands.size(),
                 "einsum(): more operands were provided than specified in the equation");
  KINDLING_CHECK(operands.size() <= 2, "einsum(): Kindling supports one or two operands, got ", operands.size());
  std::map<char, int> count;
  std::map<char, std::int64_t> size_of;
  for (std::size_t k = 0; k < terms.size(); ++k) {
    for (std::size_t i = 0; i < terms[k].size(); ++i) {
      const char c = terms[k][i];
      KINDLING_CHECK(std::isalpha(static_cast<unsigned char>(c)), "einsum(): invalid subscript given at index ", i,
                     " in the equation string, subscripts must be in [a-zA-Z]");
    }
    KINDLING_CHECK(static_cast<std::int64_t>(terms[k].size()) == operands[k].dim(),
                   "einsum(): the number of subscripts in the equation (", terms[k].size(),
                   ") does not match the number of dimensions (", operands[k].dim(), ") for operand ", k,
                   " and no ellipsis was given");
    for (std::size_t i = 0; i < terms[k].size(); ++i) {
      const char c = terms[k][i];
      ++count[c];
      const std::int64_t s = operands[k].sizes()[i];
      // A subscript repeated within the operand (a diagonal) is checked against its first place there,
      // before the other operands' sizes, as PyTorch checks it.
      if (const std::size_t first = terms[k].find(c); first < i) {
        KINDLING_CHECK(s == operands[k].sizes()[first], "einsum(): subscript ", c, " is repeated for operand ", k,
                       " but the sizes don't match, ", s, " != ", operands[k].sizes()[first]);
        continue;
      }
      auto [it, fresh] = size_of.emplace(c, s);
      KINDLING_CHECK(fresh || it->second == s || it->second == 1 || s == 1, "einsum(): subscript ", c, " has size ", s,
                     " for operand ", k, " which does not broadcast with previously seen size ", it->second);
      it->second = std::max(it->second, s);
    }
  }
  std::string out;
  if (arrow == std::string::npos) {
    for (auto [c, n] : count)
      if (n == 1) out += c;  // implicit output: letters used once, alphabetically
  } else {
    out = eq.substr(arrow + 2);
    for (std::size_t i = 0; i < out.size(); ++i) {
      KINDLING_CHECK(count.count(out[i]), "einsum(): output subscript ", out[i],
                     " does not appear in the equation for any input operand");
      KINDLING_CHECK(out.find(out[i], i + 1) == std::string::npos, "einsum(): output subscript ", out[i],
                     " appears more than once in the output");
    }
  }
  auto in_out = [&out](char c) { return out.find(c) != std::string::npos; };

  std::vector<Term> ops;
  for (std::size_t k = 0; k < operands.size(); ++k) ops.push_back(take_diagonals(operands[k], terms[k], k));
  if (ops.size() == 1) {
    const Term r = sum_out(ops[0], in_out);
    return r.t.permute(positions(r.letters, out));
  }
  // Letters only one operand uses and the output does not: sum them out first.
  Term a = sum_out(ops[0], [&](char c) { return in_out(c) || ops[1].letters.find(c) != std::string::npos; });
  Term b = sum_out(ops[1], [&](char c) { return in_out(c) || ops[0].letters.find(c) != std::string::npos; });
  std::string batch, left, right, contracted;
  for (char c : a.letters) {
    const bool in_b = b.letters.find(c) != std::string::npos;
    if (in_b && in_out(c))
      batch += c;
    else if (in_b)
      contracted += c;
    else
      left += c;
  }
  for (char c : b.letters)
    if (a.letters.find(c) == std::string::npos) right += c;
  auto sizes_for = [&](const std::string& s) {
    Shape r;
    for (char c : s) r.push_back(size_of[c]);
    return r;
  };
  const ScalarType dtype = promote_types(a.t.dtype(), b.t.dtype());
  auto arrange = [&](const Term& term, const std::string& order) {
    Tensor p = term.t.permute(positions(term.letters, order));
    return p.expand(sizes_for(order)).to(dtype);  // broadcast size-1 batch dims
  };
  const std::int64_t nb = numel_of(sizes_for(batch)), nl = numel_of(sizes_for(left)),
                     nc = numel_of(sizes_for(contracted)), nr = numel_of(sizes_for(right));
  const Tensor am = arrange(a, batch + left + contracted).reshape({nb, nl, nc});
  const Tensor bm = arrange(b, batch + contracted + right).reshape({nb, nc, nr});
  const std::string result_letters = batch + left + right;
  const Tensor r = bmm(am, bm).view(sizes_for(result_letters));
  return r.permute(positions(result_letters, out));
}

}  // namespace kindling

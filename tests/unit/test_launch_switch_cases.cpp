// Folding a site's template arguments once the switch constants around it are set
// (launch/switch_cases.hpp). The shapes are flash-attention 2 0251105's kernel arguments, written here.
#include <gtest/gtest.h>

#include "launch/switch_cases.hpp"

using namespace kiln;

TEST(SwitchCases, ArgumentsFoldOnceTheConstantsAreSet) {
  const std::string site = "&fwd_kernel<K, D && !Softcap, Local && !C, EvenK && !Alibi, K::kHeadDim <= 128, 4>";
  const launch::SwitchValues on{{"Softcap", false}, {"Local", true}, {"EvenK", true}, {"Alibi", false}};
  EXPECT_EQ(launch::fold_switch_constants(site, on), "&fwd_kernel<K,D,!C,true,K::kHeadDim<=128,4>");
  const launch::SwitchValues off{{"Softcap", true}, {"Local", false}, {"EvenK", true}, {"Alibi", true}};
  EXPECT_EQ(launch::fold_switch_constants(site, off), "&fwd_kernel<K,false,false,false,K::kHeadDim<=128,4>");
  // Parentheses, `||`, and a caller's constant among the set ones.
  EXPECT_EQ(launch::fold_switch_constants("k<(A || B) && X, !(A && B)>", {{"A", true}, {"B", false}}), "k<X,true>");
  // What is not a boolean expression stays as written, blanks dropped.
  EXPECT_EQ(launch::fold_switch_constants("run<Traits<64, 128, T>, A>(params, f(A, 2))", {{"A", false}}),
            "run<Traits<64,128,T>,false>(params,f(false,2))");
  // Unbalanced text does not fold and does not fail.
  EXPECT_EQ(launch::fold_switch_constants("k<(A && , B)>", {{"A", true}}), "k<(true&&,B)>");
}

TEST(SwitchCases, AConditionHoldsOnlyWhenItsConstantsDecideIt) {
  EXPECT_EQ(launch::switch_condition("!Is_dropout", {{"Is_dropout", false}}), true);
  EXPECT_EQ(launch::switch_condition("!Is_dropout && Is_causal", {{"Is_dropout", true}}), false);
  EXPECT_EQ(launch::switch_condition("!Is_dropout && Is_causal", {{"Is_dropout", false}}), std::nullopt);
  EXPECT_EQ(launch::switch_condition("std::is_same_v<T, half>", {{"T", true}}), std::nullopt);
  EXPECT_EQ(launch::switch_condition("", {}), std::nullopt);
}

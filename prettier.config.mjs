// The style most of the code already had (of the options measured, these change the fewest lines);
// 140 columns is the house's line limit.
export default { singleQuote: true, printWidth: 140 };

// The style most of the code already had (of the options measured, these change the fewest lines);
// 140 columns is the house's line limit. YAML keeps the double quotes docker-compose.yml is written with.
export default {
  singleQuote: true,
  printWidth: 140,
  overrides: [{ files: '*.{yml,yaml}', options: { singleQuote: false } }],
};

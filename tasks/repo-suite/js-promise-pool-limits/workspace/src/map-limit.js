async function mapLimit(items, limit, fn) {
  const results = [];
  await Promise.all(
    items.map(async (item, i) => {
      results.push(await fn(item, i));
    }),
  );
  return results;
}

module.exports = { mapLimit };

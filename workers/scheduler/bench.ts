export async function main(_argv: string[]): Promise<number> {
  console.error('this benchmark is not written yet');
  return 1;
}

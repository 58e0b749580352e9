import { InputInvalidError } from '../../shared/index.js';

/** GTA's published leaderboard (`leaderboard.csv`; docs/gta.md, "Official files: leaderboard.csv"): one typed row per model. */
export interface GtaLeaderboardRow {
  model: string;
  instAcc: number;
  toolAcc: number;
  argAcc: number;
  summAcc: number;
  pF1: number;
  oF1: number;
  lF1: number;
  cF1: number;
  ansAcc: number;
  link: string;
  opensourced: boolean;
}

const HEADER = 'Model,InstAcc,ToolAcc,ArgAcc,SummAcc,P_F1,O_F1,L_F1,C_F1,AnsAcc,link,opensourced';

/** Parses the CSV (no quoted fields in the official file); errors name the file, line and column. */
export function parseGtaLeaderboard(text: string, file: string): GtaLeaderboardRow[] {
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== '');
  if (lines[0] !== HEADER)
    throw new InputInvalidError({ file, record: 'line 1' }, `expected header ${HEADER}`);
  return lines.slice(1).map((line, i) => {
    const cells = line.split(',');
    const where = { file, record: `line ${i + 2}` };
    if (cells.length !== 12) throw new InputInvalidError(where, `expected 12 columns, got ${cells.length}`);
    const num = (k: number, field: string) => {
      const v = Number(cells[k]);
      if (cells[k] === '' || Number.isNaN(v))
        throw new InputInvalidError({ ...where, field }, 'expected a number');
      return v;
    };
    const open = cells[11]!.toUpperCase();
    if (open !== 'TRUE' && open !== 'FALSE')
      throw new InputInvalidError({ ...where, field: 'opensourced' }, 'expected TRUE or FALSE');
    return {
      model: cells[0]!,
      instAcc: num(1, 'InstAcc'),
      toolAcc: num(2, 'ToolAcc'),
      argAcc: num(3, 'ArgAcc'),
      summAcc: num(4, 'SummAcc'),
      pF1: num(5, 'P_F1'),
      oF1: num(6, 'O_F1'),
      lF1: num(7, 'L_F1'),
      cF1: num(8, 'C_F1'),
      ansAcc: num(9, 'AnsAcc'),
      link: cells[10]!,
      opensourced: open === 'TRUE',
    };
  });
}

// ToolBench's metrics are the core's retrieval evaluation (moved to src/retrieval/evaluate-retriever.ts)
export { evaluateRetriever, type QueryScores, type RetrievalReport } from '../../retrieval/index.js';

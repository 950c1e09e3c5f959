"""The statutes DocGate cites: each article as law, number and a one-line gist, and the flag a check returns."""

from __future__ import annotations

from dataclasses import dataclass

CIVIL_CODE = "民法典"
LABOUR_CONTRACT_LAW = "劳动合同法"


@dataclass(frozen=True)
class Article:
    """One statutory article: the law, its number (第586条, 第496-498条) and what it says, in DocGate's words."""

    law: str
    number: str
    gist: str

    @property
    def citation(self) -> str:
        """The short citation shown beside a point: 民法典第586条."""
        return f"{self.law}{self.number}"


@dataclass(frozen=True)
class RiskFlag:
    """A statutory risk: code, severity (warning|note), message, legal basis, evidence spans and the article."""

    code: str
    severity: str
    message: str
    basis: str
    evidence: tuple[tuple[int, int], ...]
    article: Article | None = None


def flag(code: str, severity: str, message: str, article: Article, evidence: tuple[tuple[int, int], ...]) -> RiskFlag:
    """A flag citing `article` (its `basis` is the article's citation)."""
    return RiskFlag(code, severity, message, article.citation, evidence, article)


# 民法典 (Civil Code)
CC_496 = Article(
    CIVIL_CODE, "第496条", "格式条款的提供方须以合理方式提示对方注意免除或减轻其责任等与对方有重大利害关系的条款"
)
CC_497 = Article(CIVIL_CODE, "第497条", "格式条款不合理地免除提供方责任、加重对方责任、限制或排除对方主要权利的无效")
CC_498 = Article(CIVIL_CODE, "第498条", "格式条款有两种以上解释的，应作不利于提供方的解释，解释权不能由提供方独占")
CC_506 = Article(
    CIVIL_CODE, "第506条", "免除造成对方人身损害的责任、或因故意或重大过失造成对方财产损失的责任的条款无效"
)
CC_585 = Article(
    CIVIL_CODE, "第585条", "约定的违约金过分高于所造成的损失的，人民法院或仲裁机构可根据当事人请求予以适当减少"
)
CC_586 = Article(CIVIL_CODE, "第586条", "定金数额不得超过主合同标的额的百分之二十，超过部分不产生定金效力")
CC_588 = Article(
    CIVIL_CODE, "第588条", "同时约定违约金和定金的，一方违约时对方只能选择适用违约金或者定金条款（定金罚则见第587条）"
)
CC_680 = Article(
    CIVIL_CODE, "第680条", "禁止高利放贷，借款利率不得违反国家规定；民间借贷利率以合同成立时一年期LPR的四倍为上限"
)
CC_705 = Article(CIVIL_CODE, "第705条", "租赁期限不得超过二十年，超过部分无效")

# 劳动合同法 (Labour Contract Law)
LCL_19 = Article(LABOUR_CONTRACT_LAW, "第19条", "试用期长度受劳动合同期限限制，同一单位与同一劳动者只能约定一次试用期")
LCL_20 = Article(LABOUR_CONTRACT_LAW, "第20条", "试用期工资不得低于约定工资的百分之八十，并不得低于当地最低工资标准")
LCL_23 = Article(
    LABOUR_CONTRACT_LAW, "第23条", "约定竞业限制的，用人单位应在解除或终止劳动合同后按月给予劳动者经济补偿"
)
LCL_24 = Article(LABOUR_CONTRACT_LAW, "第24条", "竞业限制期限不得超过二年")
LCL_25 = Article(LABOUR_CONTRACT_LAW, "第25条", "除服务期和竞业限制外，用人单位不得约定由劳动者承担违约金")
